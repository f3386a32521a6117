#include "core/io/zip_directory.h"

#include <QtCore/QFile>
#include <QtCore/QStringList>

#include <algorithm>
#include <vector>

namespace graft::core::io {

namespace {
quint64 le(const char* p, int bytes) {
  quint64 v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | quint8(p[i]);
  return v;
}
}  // namespace

std::optional<QHash<QString, ZipEntry>> readZipDirectory(const QString& path, QString* error) {
  auto fail = [&](const QString& why) -> std::optional<QHash<QString, ZipEntry>> {
    if (error) *error = why;
    return std::nullopt;
  };
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return fail(f.errorString());
  const qint64 size = f.size();
  // The end-of-central-directory record sits in the last 22 bytes plus a comment of up to 64 KiB.
  const qint64 tailStart = std::max<qint64>(0, size - (22 + 65535 + 20));
  f.seek(tailStart);
  const QByteArray tail = f.read(size - tailStart);
  qsizetype eocd = -1;
  for (qsizetype i = tail.size() - 22; i >= 0; --i)
    if (le(tail.constData() + i, 4) == 0x06054b50) { eocd = i; break; }
  if (eocd < 0) return fail(QStringLiteral("no zip directory"));
  const char* e = tail.constData() + eocd;
  quint64 entries = le(e + 10, 2), cdSize = le(e + 12, 4), cdOffset = le(e + 16, 4);
  if (entries == 0xFFFF || cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF) {
    // ZIP64: the locator just before the record points at the ZIP64 end record.
    if (eocd < 20 || le(tail.constData() + eocd - 20, 4) != 0x07064b50) return fail(QStringLiteral("no ZIP64 locator"));
    const quint64 z64 = le(tail.constData() + eocd - 20 + 8, 8);
    if (z64 + 56 > quint64(size) || !f.seek(qint64(z64))) return fail(QStringLiteral("ZIP64 record outside the file"));
    const QByteArray rec = f.read(56);
    if (rec.size() != 56 || le(rec.constData(), 4) != 0x06064b50) return fail(QStringLiteral("bad ZIP64 record"));
    entries = le(rec.constData() + 32, 8);
    cdSize = le(rec.constData() + 40, 8);
    cdOffset = le(rec.constData() + 48, 8);
  }
  if (cdOffset + cdSize > quint64(size) || cdSize > (quint64(1) << 31))
    return fail(QStringLiteral("the zip directory lies outside the file"));
  f.seek(qint64(cdOffset));
  const QByteArray cd = f.read(qint64(cdSize));
  QHash<QString, ZipEntry> out;
  qsizetype at = 0;
  for (quint64 n = 0; n < entries; ++n) {
    if (at + 46 > cd.size() || le(cd.constData() + at, 4) != 0x02014b50)
      return fail(QStringLiteral("damaged zip directory"));
    const char* h = cd.constData() + at;
    ZipEntry entry;
    entry.method = int(le(h + 10, 2));
    entry.compressedSize = le(h + 20, 4);
    entry.size = le(h + 24, 4);
    entry.localHeaderOffset = le(h + 42, 4);
    const qsizetype nameLen = qsizetype(le(h + 28, 2)), extraLen = qsizetype(le(h + 30, 2)),
                    commentLen = qsizetype(le(h + 32, 2));
    if (at + 46 + nameLen + extraLen + commentLen > cd.size()) return fail(QStringLiteral("damaged zip directory"));
    const QString name = QString::fromUtf8(h + 46, nameLen);
    // ZIP64 extra field: the 64-bit values of the fields that read 0xFFFFFFFF, in this order.
    for (qsizetype x = 0; x + 4 <= extraLen;) {
      const char* field = h + 46 + nameLen + x;
      const quint64 id = le(field, 2), len = le(field + 2, 2);
      if (id == 0x0001) {
        qsizetype k = 4;
        auto take = [&](quint64& v) {
          if (v != 0xFFFFFFFF || k + 8 > qsizetype(4 + len)) return;
          v = le(field + k, 8);
          k += 8;
        };
        take(entry.size);
        take(entry.compressedSize);
        take(entry.localHeaderOffset);
      }
      x += 4 + qsizetype(len);
    }
    if (entry.localHeaderOffset + entry.compressedSize > quint64(size))
      return fail(QStringLiteral("record %1 reaches past the end of the file").arg(name));
    if (out.contains(name)) return fail(QStringLiteral("record %1 is listed twice").arg(name));
    out.insert(name, entry);
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

namespace {
// A crafted directory can point many entries at one record (or into another's bytes), so each
// passes alone while reading them all inflates it over and over. Every record has its own local
// header of at least 30 bytes before its data.
QString checkOverlap(const QHash<QString, ZipEntry>& entries) {
  std::vector<std::pair<quint64, QString>> byOffset;
  byOffset.reserve(size_t(entries.size()));
  for (auto it = entries.constBegin(); it != entries.constEnd(); ++it)
    byOffset.emplace_back(it.value().localHeaderOffset, it.key());
  std::sort(byOffset.begin(), byOffset.end());
  for (size_t i = 1; i < byOffset.size(); ++i) {
    const ZipEntry& before = entries[byOffset[i - 1].second];
    if (before.localHeaderOffset + 30 + before.compressedSize > byOffset[i].first)
      return QStringLiteral("records %1 and %2 share bytes in the file (a crafted zip directory)")
          .arg(byOffset[i - 1].second, byOffset[i].second);
  }
  return {};
}

bool isCode(const QString& name) {
  const qsizetype slash = name.indexOf(QLatin1Char('/'));
  return slash >= 0 && QStringView(name).mid(slash + 1).startsWith(QLatin1String("code/")) &&
         name.endsWith(QLatin1String(".py"));
}
}  // namespace

QString checkInflation(const QHash<QString, ZipEntry>& entries, quint64 fileSize) {
  QStringList names = entries.keys();
  names.sort();  // by name, so an archive with several bad records is always refused for the same one
  quint64 inflated = 0, code = 0;
  const quint64 allowed = std::min(kMaxInflatedTotal, std::max(kMinInflatedAllowance, fileSize * kMaxInflationRatio));
  for (const QString& name : names) {
    const ZipEntry e = entries.value(name);
    if (isCode(name) && (code += e.size) > kMaxCodeBytes)
      return QStringLiteral("its code records hold over %1 MiB, the most Graft reads").arg(kMaxCodeBytes >> 20);
    if (e.method == 0) {
      if (e.size != e.compressedSize)
        return QStringLiteral("stored record %1 claims %2 bytes but holds %3")
            .arg(name)
            .arg(e.size)
            .arg(e.compressedSize);
      continue;
    }
    if (e.size > (quint64(1) << 20) && e.size / kMaxInflationRatio > e.compressedSize)
      return QStringLiteral("record %1 would inflate %2 bytes to %3 (over %4×, the most Graft inflates)")
          .arg(name).arg(e.compressedSize).arg(e.size).arg(kMaxInflationRatio);
    inflated += e.size;
    if (inflated > allowed)
      return QStringLiteral("its compressed records would inflate to over %1 MiB, the most Graft inflates from a "
                            "file of this size")
          .arg(allowed >> 20);
  }
  return checkOverlap(entries);
}

const ZipEntry* findRecord(const QHash<QString, ZipEntry>& entries, const QString& record) {
  // Below whichever top folder holds it; should two (a crafted archive), the first by name.
  const ZipEntry* found = nullptr;
  QString foundName;
  for (auto it = entries.constBegin(); it != entries.constEnd(); ++it) {
    const qsizetype slash = it.key().indexOf(QLatin1Char('/'));
    if (slash < 0 || QStringView(it.key()).mid(slash + 1) != record) continue;
    if (!found || it.key() < foundName) {
      found = &it.value();
      foundName = it.key();
    }
  }
  return found;
}

}  // namespace graft::core::io
