#include "core/report/versions.h"

#include <graphviz/gvc.h>
#include <torch/cuda.h>
#include <torch/script.h>
#include <torch/version.h>

#include <dlfcn.h>

namespace graft::core::report {

namespace {

QString loadedLibraryOf(const void* symbol) {
  Dl_info info{};
  if (dladdr(symbol, &info) && info.dli_fname) return QString::fromLocal8Bit(info.dli_fname);
  return {};
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
  v.torch = QString::fromLatin1(TORCH_VERSION);
  v.torchLibrary = loadedLibraryOf(reinterpret_cast<const void*>(&at::globalContext));
  v.graphviz = graphvizVersion();
  v.cuda = torch::cuda::is_available();
  return v;
}

QString versionsText(const Versions& v) {
  return QStringLiteral("Qt %1 · libtorch %2 (%3) · Graphviz %4 · CUDA: %5")
      .arg(v.qt, v.torch, v.torchLibrary, v.graphviz, v.cuda ? QStringLiteral("yes") : QStringLiteral("no"));
}

}  // namespace graft::core::report
