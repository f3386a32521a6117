#include "core/run/threads.h"

#include <ATen/Parallel.h>

#include <QtCore/QFile>
#include <QtCore/QSet>

#include <algorithm>
#include <atomic>
#include <thread>

namespace graft::core::run {

namespace {
std::atomic<bool> g_configured{false};
}

int physicalCores() {
  QFile f(QStringLiteral("/proc/cpuinfo"));
  QSet<QString> cores;
  if (f.open(QIODevice::ReadOnly | QIODevice::Text)) {
    QString package;
    for (const QByteArray& raw : f.readAll().split('\n')) {
      const QString line = QString::fromLatin1(raw);
      if (line.startsWith(QLatin1String("physical id"))) package = line.section(QLatin1Char(':'), 1).trimmed();
      if (line.startsWith(QLatin1String("core id")))
        cores.insert(package + QLatin1Char('/') + line.section(QLatin1Char(':'), 1).trimmed());
    }
  }
  if (!cores.isEmpty()) return static_cast<int>(cores.size());
  return std::max(1u, std::thread::hardware_concurrency());
}

int maxThreads() {
  const int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
  return std::clamp(4 * hardware, 256, 1024);
}

int useThreads(int n) {
  const int count = n > 0 ? std::min(n, maxThreads()) : physicalCores();
  at::set_num_threads(count);
  g_configured = true;
  return at::get_num_threads();
}

void ensureThreads() {
  if (!g_configured.exchange(true)) at::set_num_threads(physicalCores());
}

int currentThreads() {
  ensureThreads();
  return at::get_num_threads();
}

}  // namespace graft::core::run
