#pragma once
// The versions of Graft and of the libraries actually loaded, for --version and the About box.
#include <QtCore/QString>

namespace graft::core::report {

struct Versions {
  QString graft;
  QString qt;            // the Qt library loaded at run time
  QString torch;         // the libtorch version Graft was compiled against
  QString torchLibrary;  // the libtorch shared object actually loaded
  QString graphviz;      // reported by the loaded libgvc
  bool cuda = false;     // whether libtorch sees a CUDA device
};

Versions versions();
// "Qt 6.4.2 · libtorch 1.13.0 (/usr/lib/...) · Graphviz 2.43.0 · CUDA: no"
QString versionsText(const Versions& v);

}  // namespace graft::core::report
