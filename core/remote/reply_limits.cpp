#include "core/remote/reply_limits.h"

#include <QtCore/QFile>
#include <algorithm>
#include <unistd.h>

namespace graft::core::remote {

namespace {
// MemAvailable from /proc/meminfo (what can be allocated without swapping), else physical memory.
qint64 availableMemory() {
  QFile f(QStringLiteral("/proc/meminfo"));
  if (f.open(QIODevice::ReadOnly))
    for (const QByteArray& line : f.readAll().split('\n'))
      if (line.startsWith("MemAvailable:")) {
        const QList<QByteArray> words = line.simplified().split(' ');
        bool ok = false;
        const qint64 kib = words.size() > 1 ? words[1].toLongLong(&ok) : 0;
        if (ok && kib > 0) return kib * 1024;
      }
  const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? qint64(pages) * size : kMaxValuePayload;
}
}  // namespace

qint64 replyLimit(const QJsonObject& request) {
  const QString op = request.value(QStringLiteral("op")).toString();
  const bool values = (op == QLatin1String("run") || op == QLatin1String("run_nodes")) &&
                      !request.value(QStringLiteral("types_only")).toBool();
  if (!values) return kMaxControlPayload;
  return std::min(kMaxValuePayload, availableMemory());
}

}  // namespace graft::core::remote
