#include "core/rewrite/python_worker.h"

#include "core/model/child_process.h"

#include "core/rewrite/python_rules.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QTemporaryDir>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

static void initWorkerResources() { Q_INIT_RESOURCE(graft_python); }

namespace graft::core::rewrite {

namespace {

std::atomic<int> gStarts{0};

const char* const kPackageFiles[] = {"__init__.py", "rules.py", "_rule_compiler.py", "_module_compiler.py",
                                     "_worker.py"};

QString howToChoose() {
  return QStringLiteral("choose a Python that has torch with GRAFT_PYTHON=/path/to/python, e.g. "
                        "GRAFT_PYTHON=$VIRTUAL_ENV/bin/python");
}

// The last lines of a text file Graft's child wrote, at most 64 KiB of it; empty when it is not a
// regular file.
QString tailOf(const QString& path) {
  QFile f(path);
  if (!QFileInfo(path).isFile() || QFileInfo(path).isSymLink() || !f.open(QIODevice::ReadOnly)) return {};
  if (f.size() > 65536) f.seek(f.size() - 65536);
  return QString::fromUtf8(f.read(65536)).trimmed();
}

QString lastLine(const QString& text) {
  const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  return lines.isEmpty() ? QString() : lines.last().trimmed();
}

struct Worker {
  std::timed_mutex lock;  // one job at a time
  // Guarded by `lock`.
  int fd = -1;             // our end of the socket that is the worker's stdin and stdout
  bool ready = false;      // its "ready" line was read
  QString python;          // the interpreter it runs on
  std::unique_ptr<QTemporaryDir> dir;  // the graft package it imports, its stderr
  QByteArray buffer;       // read, not yet a whole line
  qint64 nextJob = 1;
  // Also read at exit, without `lock`.
  std::atomic<pid_t> pid{-1};       // the worker, leader of its process group
  std::atomic<pid_t> jobGroup{-1};  // the running job's process group

  ~Worker() { stop(); }

  void stop() {
    if (fd >= 0) ::close(fd);  // a worker between jobs sees its socket close and exits
    fd = -1;
    if (const pid_t job = jobGroup.exchange(-1); job > 0) ::kill(-job, SIGKILL);
    if (const pid_t p = pid.exchange(-1); p > 0) {
      ::kill(-p, SIGKILL);
      int status = 0;
      while (::waitpid(p, &status, 0) < 0 && errno == EINTR) {}
    }
    ready = false;
    buffer.clear();
    dir.reset();
  }

  QString stderrTail() const { return dir ? tailOf(dir->filePath(QStringLiteral("worker-stderr.txt"))) : QString(); }

  bool send(const QJsonObject& message) {
    const QByteArray line = QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n';
    qsizetype done = 0;
    while (done < line.size()) {
      const ssize_t n = ::send(fd, line.constData() + done, size_t(line.size() - done), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += n;
    }
    return true;
  }

  enum class Read { Line, Nothing, Closed };
  // The next line from the worker, waiting at most `waitMs`.
  Read readLine(QJsonObject& message, int waitMs) {
    for (;;) {
      if (const qsizetype end = buffer.indexOf('\n'); end >= 0) {
        message = QJsonDocument::fromJson(buffer.left(end)).object();
        buffer.remove(0, end + 1);
        return Read::Line;
      }
      pollfd p{fd, POLLIN, 0};
      const int n = ::poll(&p, 1, waitMs);
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) return Read::Nothing;
      char chunk[4096];
      const ssize_t got = ::recv(fd, chunk, sizeof chunk, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return Read::Closed;
      buffer.append(chunk, got);
      waitMs = 0;
    }
  }

  // Starts the worker process (it then imports torch and warms up: `ready` comes later).
  bool spawn(const QString& interpreter, QString& error) {
    initWorkerResources();
    dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/graft-python-XXXXXX"));
    const QString pkg = dir->filePath(QStringLiteral("pkg/graft"));
    if (!dir->isValid() || !QDir().mkpath(pkg)) {
      error = QStringLiteral("cannot make a folder for Graft's Python helpers: %1").arg(dir->errorString());
      return false;
    }
    for (const char* name : kPackageFiles) {
      QFile in(QStringLiteral(":/python/graft/") + QLatin1String(name));
      QFile out(pkg + QLatin1Char('/') + QLatin1String(name));
      if (!in.open(QIODevice::ReadOnly) || !out.open(QIODevice::WriteOnly) || out.write(in.readAll()) < 0) {
        error = QStringLiteral("cannot write Graft's Python helper %1 into %2").arg(QLatin1String(name), pkg);
        return false;
      }
    }
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      error = QString::fromLocal8Bit(std::strerror(errno));
      return false;
    }
    // The environment: this process's, with the graft package first on the path.
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
      const std::string entry(*e);
      if (entry.rfind("PYTHONPATH=", 0) != 0 && entry.rfind("PYTHONDONTWRITEBYTECODE=", 0) != 0 &&
          entry.rfind("PYTHONUNBUFFERED=", 0) != 0)
        env.push_back(entry);
    }
    const QString pythonPath = qEnvironmentVariable("PYTHONPATH");
    env.push_back("PYTHONPATH=" + QFile::encodeName(dir->filePath(QStringLiteral("pkg")) +
                                                    (pythonPath.isEmpty() ? QString() : QLatin1Char(':') + pythonPath))
                                      .toStdString());
    env.push_back("PYTHONDONTWRITEBYTECODE=1");
    env.push_back("PYTHONUNBUFFERED=1");
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    const QByteArray program = QFile::encodeName(interpreter);
    const QByteArray script = QFile::encodeName(pkg + QStringLiteral("/_worker.py"));
    const QByteArray errFile = QFile::encodeName(dir->filePath(QStringLiteral("worker-stderr.txt")));
    model::ChildProcess spec;
    spec.program = program;
    spec.argv = {program, "-u", script};
    spec.environment = envp.data();
    spec.socket = sv[1];
    spec.socketIsStdout = true;
    spec.stderrPath = errFile;
    spec.ownGroup = true;  // a process group of its own, killed whole
    QString why;
    const pid_t child = model::startChild(spec, &why);
    ::close(sv[1]);
    if (child < 0) {
      ::close(sv[0]);
      error = QStringLiteral("cannot start Python '%1': %2").arg(interpreter, why.section(QStringLiteral(": "), 1));
      return false;
    }
    fd = sv[0];
    pid = child;
    python = interpreter;
    ready = false;
    buffer.clear();
    ++gStarts;
    return true;
  }
};

Worker& theWorker() {
  static Worker worker;
  return worker;
}

// The interpreter asked for now, as a path the worker can start from any folder.
QString wantedInterpreter() {
  QString python = pythonInterpreter();
  // A relative path ($GRAFT_PYTHON=.venv/bin/python) is the caller's, not the rule folder's.
  if (python.contains(QLatin1Char('/')) && QFileInfo(python).isRelative())
    python = QFileInfo(python).absoluteFilePath();
  return python;
}

}  // namespace

int pythonWorkerStarts() { return gStarts.load(); }

void stopPythonWorker() {
  Worker& w = theWorker();
  std::lock_guard<std::timed_mutex> hold(w.lock);
  w.stop();
}

void startPythonWorker() {
  Worker& w = theWorker();
  std::unique_lock<std::timed_mutex> hold(w.lock, std::try_to_lock);
  if (!hold.owns_lock()) return;  // a job runs: the worker is there
  const QString python = wantedInterpreter();
  if (w.fd >= 0 && w.python == python) return;
  w.stop();
  QString ignored;
  w.spawn(python, ignored);
}

PythonJobEnd runPythonJob(const PythonJob& job) {
  PythonJobEnd end;
  const auto cancelled = [&] { return job.cancel && job.cancel->load(); };
  Worker& w = theWorker();
  std::unique_lock<std::timed_mutex> hold(w.lock, std::defer_lock);
  while (!hold.try_lock_for(std::chrono::milliseconds(100)))
    if (cancelled()) return end.how = PythonJobEnd::How::Cancelled, end;

  const QString python = wantedInterpreter();
  end.python = python;
  const auto fail = [&](const QString& error, const QString& hint) {
    end.how = PythonJobEnd::How::Failed;
    end.error = error;
    end.hint = hint;
    return end;
  };
  if (w.fd >= 0 && w.python != python) w.stop();  // $GRAFT_PYTHON names another one now
  if (w.fd < 0) {
    QString error;
    if (!w.spawn(python, error)) {
      w.stop();
      return fail(error, howToChoose());
    }
  }
  // Importing torch and warming up torch.export, once per worker.
  if (!w.ready) {
    QDeadlineTimer deadline(qint64(job.timeoutSeconds + 60) * 1000);
    for (;;) {
      if (cancelled()) return end.how = PythonJobEnd::How::Cancelled, end;  // it goes on starting for the next job
      QJsonObject message;
      const auto read = w.readLine(message, 100);
      if (read == Worker::Read::Line && message.contains(QLatin1String("ready"))) {
        if (message.value(QLatin1String("ready")).toBool()) {
          w.ready = true;
          break;
        }
        const QString why = message.value(QLatin1String("error")).toString();
        w.stop();
        return fail(QStringLiteral("Python (%1) cannot import torch: %2").arg(python, why), howToChoose());
      }
      if (read == Worker::Read::Closed) {
        const QString tail = lastLine(w.stderrTail());
        w.stop();
        return fail(QStringLiteral("Python (%1) ended as it started%2")
                        .arg(python, tail.isEmpty() ? QString() : QStringLiteral(": ") + tail),
                    howToChoose());
      }
      if (deadline.hasExpired()) {
        w.stop();
        return fail(QStringLiteral("Python (%1) did not start within %2 s").arg(python).arg(job.timeoutSeconds + 60),
                    QStringLiteral("GRAFT_PYTHON_TIMEOUT=SECONDS sets the limit; ") + howToChoose());
      }
    }
  }

  const qint64 id = w.nextJob++;
  QJsonObject request{{"job", id},
                      {"mode", job.mode},
                      {"path", QFileInfo(job.path).absoluteFilePath()},
                      {"outdir", QFileInfo(job.outDir).absoluteFilePath()},
                      {"timeout", job.timeoutSeconds}};
  request.insert(QStringLiteral("request"),
                 job.requestFile.isEmpty() ? QJsonValue() : QJsonValue(QFileInfo(job.requestFile).absoluteFilePath()));
  if (!w.send(request)) {
    const QString tail = lastLine(w.stderrTail());
    w.stop();
    return fail(QStringLiteral("Graft's Python worker (%1) ended%2")
                    .arg(python, tail.isEmpty() ? QString() : QStringLiteral(": ") + tail),
                QStringLiteral("Try again: the next job starts a new one."));
  }
  // The job stops itself at its limit (faulthandler), the worker kills it a little later; this is
  // the backstop for a worker that no longer answers.
  QDeadlineTimer deadline(qint64(2 * job.timeoutSeconds + 60) * 1000);
  bool cancelSent = false;
  QDeadlineTimer cancelDeadline(QDeadlineTimer::Forever);
  for (;;) {
    if (!cancelSent && cancelled()) {
      cancelSent = true;
      if (const pid_t g = w.jobGroup.load(); g > 0) ::kill(-g, SIGKILL);
      w.send(QJsonObject{{"cancel", id}});
      cancelDeadline.setRemainingTime(5000);
    }
    QJsonObject message;
    const auto read = w.readLine(message, 100);
    if (read == Worker::Read::Line && message.value(QLatin1String("job")).toInteger() == id) {
      if (message.contains(QLatin1String("started"))) {
        w.jobGroup = pid_t(message.value(QLatin1String("started")).toInteger());
        if (cancelSent) ::kill(-w.jobGroup.load(), SIGKILL);
        continue;
      }
      if (message.contains(QLatin1String("exit"))) {
        w.jobGroup = -1;
        const QString stopped = message.value(QLatin1String("stopped")).toString();
        end.exitCode = message.value(QLatin1String("exit")).toInt(-1);
        end.signal = message.value(QLatin1String("signal")).toInt(0);
        end.how = cancelSent ? PythonJobEnd::How::Cancelled
                  : stopped == QLatin1String("timeout") ? PythonJobEnd::How::TimedOut
                                                        : PythonJobEnd::How::Finished;
        return end;
      }
      continue;
    }
    if (read == Worker::Read::Closed) {
      const QString tail = lastLine(w.stderrTail());
      w.stop();
      if (cancelSent) return end.how = PythonJobEnd::How::Cancelled, end;
      return fail(QStringLiteral("Graft's Python worker (%1) ended during the job%2")
                      .arg(python, tail.isEmpty() ? QString() : QStringLiteral(": ") + tail),
                  QStringLiteral("Try again: the next job starts a new one."));
    }
    if (deadline.hasExpired() || cancelDeadline.hasExpired()) {
      w.stop();  // it no longer answers: the next job starts a new one
      end.how = cancelSent ? PythonJobEnd::How::Cancelled : PythonJobEnd::How::TimedOut;
      return end;
    }
  }
}

}  // namespace graft::core::rewrite
