#include "core/report/versions.h"

#include "core/io/operator_libraries.h"
#include "core/run/threads.h"

#include <graphviz/gvc.h>
#include <torch/cuda.h>
#include <torch/script.h>
#include <torch/version.h>

#include <QtCore/QFile>

#include <dlfcn.h>

namespace graft::core::report {

namespace {

QString loadedLibraryOf(const void* symbol) {
  Dl_info info{};
  if (dladdr(symbol, &info) && info.dli_fname) return QString::fromLocal8Bit(info.dli_fname);
  return {};
}

// The loaded libtorch's own version: a wheel's torch/version.py ("2.14.1+cu130"), a libtorch
// archive's build-version file; the compiled-in version when neither is there.
QString loadedTorchVersion() {
  const QString root = io::loadedTorchRoot();
  if (const QString wheel = io::packageVersion(root); !wheel.isEmpty()) return wheel;
  QFile archive(root + QStringLiteral("/build-version"));
  if (archive.open(QIODevice::ReadOnly | QIODevice::Text)) return QString::fromUtf8(archive.readAll()).trimmed();
  return QString::fromLatin1(TORCH_VERSION);
}

QString graphvizVersion() {
  GVC_t* gvc = gvContext();
  const QString v = QString::fromLatin1(gvcVersion(gvc));
  gvFreeContext(gvc);
  return v;
}

}  // namespace

Versions versions() {
  Versions v;
  v.graft = QStringLiteral(GRAFT_VERSION);
  v.qt = QString::fromLatin1(qVersion());
  v.torch = loadedTorchVersion();
  v.torchBuilt = QString::fromLatin1(TORCH_VERSION);
  v.torchLibrary = loadedLibraryOf(reinterpret_cast<const void*>(&at::globalContext));
  const auto& tv = io::loadTorchvisionOperators();
  v.torchvisionLoaded = tv.loaded;
  v.torchvision = tv.loaded
                      ? QStringLiteral("%1 (%2)").arg(tv.version.isEmpty() ? QStringLiteral("?") : tv.version, tv.path)
                      : tv.message;
  v.graphviz = graphvizVersion();
  v.threads = run::currentThreads();
  v.cuda = torch::cuda::is_available();
  return v;
}

QString versionsText(const Versions& v) {
  return QStringLiteral(
             "Qt %1 · libtorch %2 (%3; built against %4) · torchvision ops: %5 · Graphviz %6 · threads %7 · CUDA: %8")
      .arg(v.qt, v.torch, v.torchLibrary, v.torchBuilt,
           v.torchvisionLoaded ? v.torchvision : QStringLiteral("not loaded (%1)").arg(v.torchvision), v.graphviz)
      .arg(v.threads)
      .arg(v.cuda ? QStringLiteral("yes") : QStringLiteral("no"));
}

}  // namespace graft::core::report
