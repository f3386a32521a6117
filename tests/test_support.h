#pragma once
// Helpers shared by the Qt Test executables: where the test data is and how to run graft-cli.
#include <QtCore/QJsonObject>
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace graft::test {

// The folder the `make_testdata` fixture filled (GRAFT_TESTDATA).
QString testdata(const QString& relative = {});
// Reads <name>.ref.json: what stock PyTorch says about test model `name`.
QJsonObject reference(const QString& name);

struct CliResult {
  int exitCode = -1;
  QByteArray out;
  QByteArray err;
  QJsonObject json() const;
};
// Runs graft-cli with `arguments` and waits for it (GRAFT_CLI).
CliResult runCli(const QStringList& arguments, int timeoutMs = 600000);
// Runs Debian's system Python on `script` (a file) with `arguments`; returns stdout.
CliResult runPython(const QString& script, const QStringList& arguments, int timeoutMs = 600000);

}  // namespace graft::test
