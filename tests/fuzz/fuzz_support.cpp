#include "fuzz_support.h"

#include "core/model/job_guard.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>

#include <cstdio>
#include <cstdlib>

namespace graft::fuzz {

namespace {
// Kept until the process ends and never destroyed: libFuzzer leaves through exit(), and Qt must
// not tear down while libtorch's and the harness's own statics still hold Qt objects.
QCoreApplication* app = nullptr;
QTemporaryDir* scratch = nullptr;
int appArgc = 1;
QString scratchPath;
}  // namespace

void init(int* /*argc*/, char*** argv) {
  appArgc = 1;  // Qt sees only the program name; the rest are libFuzzer's flags
  app = new QCoreApplication(appArgc, *argv);
  scratch = new QTemporaryDir(QDir::temp().filePath(QStringLiteral("graft-fuzz-XXXXXX")));
  if (!scratch->isValid()) {
    std::fprintf(stderr, "fuzz: cannot make a scratch folder\n");
    std::exit(1);
  }
  scratchPath = scratch->path();
  scratch->setAutoRemove(false);
  std::atexit([] { QDir(scratchPath).removeRecursively(); });
}

const QString& scratchDir() { return scratchPath; }

QString writeScratch(const QString& name, const std::uint8_t* data, std::size_t size) {
  const QString path = QDir(scratchPath).filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return {};
  if (size && f.write(reinterpret_cast<const char*>(data), qint64(size)) != qint64(size)) return {};
  return path;
}

void asJob(const std::function<void()>& job) {
  core::model::guarded([&] { job(); }, [](const QString&) {});
}

}  // namespace graft::fuzz
