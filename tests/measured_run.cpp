#include "measured_run.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QTemporaryFile>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

namespace graft::test {

Measured runMeasured(const QStringList& args, const QString& shell) {
  QTemporaryFile errFile;
  errFile.open();
  QElapsedTimer clock;
  clock.start();
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(QFile::encodeName(errFile.fileName()).constData(), O_WRONLY);
    ::dup2(fd, 2);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    QList<QByteArray> argv{"bash", "-c", (shell + QStringLiteral("; exec \"$0\" \"$@\"")).toUtf8(), QFile::encodeName(qEnvironmentVariable("GRAFT_CLI"))};
    for (const QString& a : args) argv << a.toUtf8();
    std::vector<char*> raw;
    for (QByteArray& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    ::execvp("bash", raw.data());
    ::_exit(127);
  }
  Measured m;
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  m.ms = clock.elapsed();
  m.peakKiB = usage.ru_maxrss;
  if (WIFEXITED(status)) m.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) m.signal = WTERMSIG(status);
  m.err = errFile.readAll();
  return m;
}

}  // namespace graft::test
