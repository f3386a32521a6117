#pragma once
// Progress of a job on a remote device (core/remote): one line per step on stderr ("graft-cli:
// gpu-box: sending the model (44.7 MB, 3f2a…)"), never in --json's diagnostics.
#include <QtCore/QString>
#include <cstdio>

namespace graft::cli {

inline void printProgress(const QString& line) {
  std::fprintf(stderr, "graft-cli: %s\n", qPrintable(line));
  std::fflush(stderr);
}

}  // namespace graft::cli
