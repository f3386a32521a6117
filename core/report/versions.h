#pragma once
// The versions of Graft and of the libraries actually loaded, for --version and the About box.
#include <QtCore/QString>

namespace graft::core::report {

struct Versions {
  QString graft;
  QString qt;            // the Qt library loaded at run time
  QString torch;         // the version of the libtorch loaded at run time (its package's version.py)
  QString torchBuilt;    // the libtorch version Graft was compiled against
  QString torchLibrary;  // the libtorch shared object actually loaded
  QString torchvision;   // "0.29.1 (path)" when its operators are loaded, else why not
  bool torchvisionLoaded = false;
  QString graphviz;      // reported by the loaded libgvc
  int threads = 0;       // intra-op threads runs use
  bool cuda = false;     // whether libtorch sees a CUDA device
};

Versions versions();
// "Qt 6.4.2 · libtorch 2.14.1+cu130 (/…/libtorch_cpu.so) · torchvision ops 0.29.1 · Graphviz 2.43.0 · threads 2 · CUDA:
// no"
QString versionsText(const Versions& v);

}  // namespace graft::core::report
