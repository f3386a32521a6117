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

LayoutWorker::Once LayoutWorker::once(const QByteArray& job, int timeoutMs, const std::atomic<bool>* cancel, DotResult& result,
                                      QString& why) {
  if (!writeFrame(fd_, job)) {
    why = stop(false);
    return Once::Died;
  }
  QByteArray reply;
  switch (readFrame(fd_, reply, timeoutMs, cancel)) {
    case FrameRead::Ok:
      if (dotResultFromBytes(reply, result)) return Once::Ok;
      stop(true);
      why = QStringLiteral("the layout process sent a malformed answer");
      return Once::Died;
    case FrameRead::Closed: why = stop(false); return Once::Died;
    case FrameRead::TimedOut:
      stop(true);
      why = QStringLiteral("no layout after %1 s").arg(timeoutMs / 1000.0);
      return Once::TimedOut;
    case FrameRead::Cancelled: stop(true); return Once::Cancelled;
  }
  return Once::Died;
}

LayoutWorker::Outcome LayoutWorker::run(const DotJob& job, int timeoutMs, const std::atomic<bool>* cancel) {
  const QByteArray bytes = toBytes(job);
  Outcome out;
  for (int attempt = 0;; ++attempt) {
    if (!ensureStarted(&out.why)) {
      out.kind = Outcome::Unavailable;
      return out;
    }
    const bool fresh = served_ == 0;
    switch (once(bytes, timeoutMs, cancel, out.result, out.why)) {
      case Once::Ok:
        ++served_;
        out.kind = Outcome::Done;
        return out;
      case Once::Cancelled: out.kind = Outcome::Cancelled; return out;
      case Once::Died: out.kind = Outcome::Died; break;
      case Once::TimedOut: out.kind = Outcome::TimedOut; break;
    }
    if (fresh || attempt > 0) return out;
    if (qEnvironmentVariableIsSet("GRAFT_LAYOUT_VERBOSE"))
      qInfo("layout worker failed after %d jobs (%s): the job runs again in a new worker", served_, qPrintable(out.why));
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

void LayoutWorker::warmUp() {
  auto w = take();
  w->ensureStarted();
  give(std::move(w));
}

int LayoutWorker::starts() { return gStarts.load(); }

}  // namespace graft::core::layout
