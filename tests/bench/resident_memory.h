#pragma once
// The process's resident memory (VmRSS), for the benchmarks that weigh memory against weights.
#include <QtCore/QByteArray>
#include <QtCore/QFile>
#include <QtCore/QList>

namespace graft::bench {

// MiB resident now, or -1 where /proc/self/status cannot be read.
inline double rssMiB() {
  QFile f(QStringLiteral("/proc/self/status"));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').front().toDouble() / 1024.0;
  return -1;
}

}  // namespace graft::bench
