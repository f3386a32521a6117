#pragma once
// The process's resident memory (VmRSS) and its high-water mark (VmHWM), for the benchmarks that
// weigh memory against weights or against a plain run in the same process.
#include <QtCore/QByteArray>
#include <QtCore/QFile>
#include <QtCore/QList>

namespace graft::bench {

// MiB of the /proc/self/status field `key` ("VmRSS:"), or -1 where it cannot be read.
inline double statusMiB(const QByteArray& key) {
  QFile f(QStringLiteral("/proc/self/status"));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith(key)) return line.mid(key.size()).trimmed().split(' ').front().toDouble() / 1024.0;
  return -1;
}

// MiB resident now, or -1 where /proc/self/status cannot be read.
inline double rssMiB() { return statusMiB("VmRSS:"); }

// MiB at the resident high-water mark since the process started or since resetPeakRss().
inline double peakRssMiB() { return statusMiB("VmHWM:"); }

// Starts the high-water mark again from the present resident size (Linux's clear_refs 5), so
// that two phases of one process each get their own peak. False where the kernel refuses.
inline bool resetPeakRss() {
  QFile f(QStringLiteral("/proc/self/clear_refs"));
  return f.open(QIODevice::WriteOnly) && f.write("5") == 1;
}

}  // namespace graft::bench
