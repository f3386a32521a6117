#pragma once
// A graft-cli run with its peak resident memory (wait4's ru_maxrss) and wall time, for the tests
// that bound what a hostile or damaged input may cost.
#include <QtCore/QByteArray>
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace graft::test {

struct Measured {
  int exitCode = -1;
  int signal = 0;
  QByteArray err;
  qint64 ms = 0;
  long peakKiB = 0;
};

// graft-cli (GRAFT_CLI) with `args`, after `shell` (a `ulimit`) in bash, which then execs it, so
// the figures are graft-cli's own.
Measured runMeasured(const QStringList& args, const QString& shell = QStringLiteral("true"));

}  // namespace graft::test
