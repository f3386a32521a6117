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
// `error` set when the directory cannot be read.
std::optional<QHash<QString, ZipEntry>> readZipDirectory(const QString& path, QString* error);

// Bounds on what compressed records may inflate to, so a file of size S cannot make Graft (or
// libtorch, which allocates a record's stated size) hold 1000×S: a compressed record larger than
// 1 MiB may inflate at most 100×, and all compressed records together to at most 32 GiB.
inline constexpr quint64 kMaxInflationRatio = 100;
inline constexpr quint64 kMaxInflatedTotal = quint64(32) << 30;
// Empty when every record keeps to those bounds (and a stored record's sizes agree), else why not.
QString checkInflation(const QHash<QString, ZipEntry>& entries);

// The entry whose name is `record` below the archive's top folder (how PyTorchStreamReader names
// records), or nullptr.
const ZipEntry* findRecord(const QHash<QString, ZipEntry>& entries, const QString& record);

}  // namespace graft::core::io
