#pragma once
// The central directory of a zip archive (a .pt or .pt2), read by Graft itself: how each record
// is stored. libtorch's PyTorchStreamReader inflates compressed records on getRecord but reports
// the data offset of any record, so mapping a record's bytes in place is only right for records
// stored uncompressed. ZIP64 sizes and offsets are understood.
#include <QtCore/QHash>
#include <QtCore/QString>

#include <optional>

namespace graft::core::io {

struct ZipEntry {
  int method = 0;  // 0 stored, 8 deflated
  quint64 compressedSize = 0;
  quint64 size = 0;
  quint64 localHeaderOffset = 0;
};

// Entries by name as the archive spells them ("archive/data/weights/weight_0"); nullopt with
// `error` set when the directory cannot be read or names a record twice (libtorch would read the
// first under each of them).
std::optional<QHash<QString, ZipEntry>> readZipDirectory(const QString& path, QString* error);

// Bounds on what records may inflate to, so a file of size S cannot make Graft (or libtorch, which
// allocates a record's stated size) hold 1000×S or read far more than S: a compressed record larger
// than 1 MiB may inflate at most 100×; all compressed records together at most 100× the file (or
// 64 MiB for a small file), and 32 GiB; the code records (`code/*.py`, which the code scan reads
// whole) together at most 256 MiB. No two records may share bytes, as a crafted directory's can.
inline constexpr quint64 kMaxInflationRatio = 100;
inline constexpr quint64 kMinInflatedAllowance = quint64(64) << 20;
inline constexpr quint64 kMaxInflatedTotal = quint64(32) << 30;
inline constexpr quint64 kMaxCodeBytes = quint64(256) << 20;
// Empty when every record keeps to those bounds (and a stored record's sizes agree), else why not.
// `fileSize`: the archive's size in bytes.
QString checkInflation(const QHash<QString, ZipEntry>& entries, quint64 fileSize);

// The entry whose name is `record` below the archive's top folder (how PyTorchStreamReader names
// records), or nullptr.
const ZipEntry* findRecord(const QHash<QString, ZipEntry>& entries, const QString& record);

}  // namespace graft::core::io
