#include "core/layout/layout_worker.h"

#include "core/layout/frame_io.h"
#include "core/layout/worker_loop.h"

#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QThread>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace graft::core::layout {

namespace {

std::atomic<int> gStarts{0};

// The worker executable: $GRAFT_LAYOUT_WORKER, else next to this executable (installed into
// lib/graft with graft and graft-cli), else where this build made it.
QString workerExecutable() {
  if (const QString set = qEnvironmentVariable("GRAFT_LAYOUT_WORKER"); !set.isEmpty()) return set;
  const QString here = QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath();
  const QString beside = QFileInfo(here).absolutePath() + QStringLiteral("/graft-layout-worker");
  if (QFileInfo(beside).isExecutable()) return beside;
#ifdef GRAFT_LAYOUT_WORKER_BUILD_PATH
  return QStringLiteral(GRAFT_LAYOUT_WORKER_BUILD_PATH);
#else
  return beside;
#endif
}

// posix_spawn: no copy of this (possibly large) process is made, and the worker starts with no
// model, no libtorch and none of this process's threads or handlers.
pid_t spawnWorker(const QString& path, int fd, QString& why) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 0);  // the socket is the worker's stdin
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  const QByteArray file = QFile::encodeName(path);
  char name[] = "graft-layout-worker", serve[] = "--serve-stdin";
  char* argv[] = {name, serve, nullptr};
  pid_t pid = -1;
  const int error = posix_spawn(&pid, file.constData(), &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) {
    why = QStringLiteral("%1: %2").arg(path, QString::fromLocal8Bit(std::strerror(error)));
    return -1;
  }
  return pid;
}

std::mutex& poolLock() {
  static std::mutex lock;
  return lock;
}
std::vector<std::unique_ptr<LayoutWorker>>& idle() {
  static std::vector<std::unique_ptr<LayoutWorker>> workers;
  return workers;
}
constexpr size_t kMaxIdle = 4;

}  // namespace

LayoutWorker::~LayoutWorker() { stop(true); }

bool LayoutWorker::ensureStarted(QString* whyOut) {
  if (fd_ >= 0) return true;
  int sv[2];
  QString why;
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    if (whyOut) *whyOut = QString::fromLocal8Bit(std::strerror(errno));
    return false;
  }
  const QString path = workerExecutable();
  pid_t pid = QFileInfo(path).isExecutable() ? spawnWorker(path, sv[1], why) : -1;
  if (pid < 0) {
    // No worker executable: a fork of this process serves instead (its pages are shared
    // copy-on-write until it writes them; it is still reused for every job).
    pid = ::fork();
    if (pid == 0) {
      ::close(sv[0]);
      _exit(serveDotJobs(sv[1]));
    }
    if (pid < 0) why += (why.isEmpty() ? QString() : QStringLiteral("; ")) + QString::fromLocal8Bit(std::strerror(errno));
  }
  ::close(sv[1]);
  if (pid < 0) {
    ::close(sv[0]);
    if (whyOut) *whyOut = QStringLiteral("no layout process could be started (%1)").arg(why);
    return false;
  }
  fd_ = sv[0];
  pid_ = pid;
  served_ = 0;
  ++gStarts;
  return true;
}

QString LayoutWorker::stop(bool kill) {
  if (fd_ < 0) return {};
  ::close(fd_);  // a worker waiting for a job sees its socket close and exits
  fd_ = -1;
  if (kill) ::kill(pid_, SIGKILL);
  int status = 0;
  // A worker whose socket closed on its own end is dying: give it a moment to be reaped with
  // its real cause before killing it.
  for (int waited = 0;; waited += 5) {
    const pid_t done = ::waitpid(pid_, &status, WNOHANG);
    if (done == pid_ || (done < 0 && errno != EINTR)) break;
    if (waited >= 2000) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
      break;
    }
    QThread::msleep(5);
  }
  pid_ = -1;
  if (WIFSIGNALED(status)) return QString::fromLocal8Bit(strsignal(WTERMSIG(status)));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return QStringLiteral("exit code %1").arg(WEXITSTATUS(status));
  return QStringLiteral("the layout process ended");
}

bool LayoutWorker::send(Outcome& out) {
  if (!ensureStarted(&out.why)) {
    out.kind = Outcome::Unavailable;
    return false;
  }
  fresh_ = served_ == 0;
  deadline_ = timeoutMs_ < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeoutMs_);
  // A worker that died before reading shows as a closed socket to advance().
  writeFrame(fd_, pending_);
  return true;
}

bool LayoutWorker::begin(const DotJob& job, int timeoutMs, Outcome& out) {
  pending_ = toBytes(job);
  timeoutMs_ = timeoutMs;
  attempt_ = 0;
  return send(out);
}

std::optional<LayoutWorker::Outcome> LayoutWorker::advance(bool readable, const std::atomic<bool>* cancel) {
  Outcome out;
  if (cancel && cancel->load()) {
    stop(true);
    out.kind = Outcome::Cancelled;
    return out;
  }
  if (readable) {
    QByteArray reply;
    // The answer has begun to arrive: the rest follows at once, unless the worker dies.
    switch (readFrame(fd_, reply, 10000, cancel)) {
      case FrameRead::Ok:
        if (dotResultFromBytes(reply, out.result)) {
          ++served_;
          pending_.clear();
          return out;
        }
        stop(true);
        out.kind = Outcome::Died;
        out.why = QStringLiteral("the layout process sent a malformed answer");
        break;
      case FrameRead::Closed:
        out.kind = Outcome::Died;
        out.why = stop(false);
        break;
      case FrameRead::TimedOut:
        stop(true);
        out.kind = Outcome::Died;
        out.why = QStringLiteral("the layout process stopped in the middle of an answer");
        break;
      case FrameRead::Cancelled:
        stop(true);
        out.kind = Outcome::Cancelled;
        return out;
    }
  } else if (deadline_.hasExpired()) {
    stop(true);
    out.kind = Outcome::TimedOut;
    out.why = QStringLiteral("no layout after %1 s").arg(timeoutMs_ / 1000.0);
  } else {
    return std::nullopt;
  }
  if (fresh_ || attempt_ > 0) return out;
  if (qEnvironmentVariableIsSet("GRAFT_LAYOUT_VERBOSE"))
    qInfo("layout worker failed after %d jobs (%s): the job runs again in a new worker", served_, qPrintable(out.why));
  ++attempt_;
  if (!send(out)) return out;
  return std::nullopt;
}

LayoutWorker::Outcome LayoutWorker::run(const DotJob& job, int timeoutMs, const std::atomic<bool>* cancel) {
  Outcome out;
  if (!begin(job, timeoutMs, out)) return out;
  for (;;) {
    pollfd ready{fd_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, 100);  // 100 ms: the cancel and the deadline are checked
    if (auto o = advance(polled > 0, cancel)) return *o;
  }
}

std::unique_ptr<LayoutWorker> LayoutWorker::take() {
  {
    std::lock_guard hold(poolLock());
    if (!idle().empty()) {
      auto w = std::move(idle().back());
      idle().pop_back();
      return w;
    }
  }
  return std::make_unique<LayoutWorker>();
}

void LayoutWorker::give(std::unique_ptr<LayoutWorker> worker) {
  if (!worker) return;
  std::unique_ptr<LayoutWorker> oldest;  // ended outside the lock
  {
    std::lock_guard hold(poolLock());
    if (idle().size() >= kMaxIdle) {
      oldest = std::move(idle().front());
      idle().erase(idle().begin());
    }
    idle().push_back(std::move(worker));  // take() hands out the most recently used first
  }
}

int LayoutWorker::starts() { return gStarts.load(); }

}  // namespace graft::core::layout
