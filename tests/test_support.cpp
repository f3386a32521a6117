#include "test_support.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QProcess>

namespace graft::test {

QString testdata(const QString& relative) {
  const QString root = qEnvironmentVariable("GRAFT_TESTDATA");
  return relative.isEmpty() ? root : QDir(root).filePath(relative);
}

QJsonObject reference(const QString& name) {
  QFile f(testdata(name + QStringLiteral(".ref.json")));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

QJsonObject CliResult::json() const { return QJsonDocument::fromJson(out).object(); }

namespace {

CliResult run(const QString& program, const QStringList& arguments, int timeoutMs) {
  QProcess p;
  p.start(program, arguments);
  CliResult r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = "timed out";
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}

}  // namespace

CliResult runCli(const QStringList& arguments, int timeoutMs) {
  return run(qEnvironmentVariable("GRAFT_CLI"), arguments, timeoutMs);
}

CliResult runPython(const QString& script, const QStringList& arguments, int timeoutMs) {
  QStringList args = arguments;
  args.prepend(script);
  return run(qEnvironmentVariable("GRAFT_PYTHON", QStringLiteral("python3")), args, timeoutMs);
}

}  // namespace graft::test
