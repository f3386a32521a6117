#include "core/layout/layout_worker.h"

#include "core/model/child_process.h"

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
  model::ChildProcess child;
  child.program = QFile::encodeName(path);
  child.argv = {"graft-layout-worker", "--serve-stdin"};
  child.socket = fd;  // the socket is the worker's stdin
  return model::startChild(child, &why);
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
    if (pid < 0)
      why += (why.isEmpty() ? QString() : QStringLiteral("; ")) + QString::fromLocal8Bit(std::strerror(errno));
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

namespace {
constexpr qsizetype kMaxQueuedBytes = 64 * 1024;  // well inside a socket's buffer
constexpr size_t kMaxQueued = 8;
}  // namespace

bool LayoutWorker::canTake(qsizetype bytes) const {
  if (queue_.empty()) return true;
  if (queue_.size() >= kMaxQueued) return false;
  qsizetype queued = bytes;
  for (const auto& p : queue_) queued += p.bytes.size();
  return queued <= kMaxQueuedBytes;
}

bool LayoutWorker::submit(QByteArray job, int tag, int timeoutMs, Outcome& failed) {
  if (!ensureStarted(&failed.why)) {
    failed.kind = Outcome::Unavailable;
    return false;
  }
  timeoutMs_ = timeoutMs;
  const auto deadline = [&] {
    return timeoutMs < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeoutMs);
  };
  if (queue_.empty()) deadline_ = deadline();
  queue_.push_back({tag, std::move(job), 0});
  // A worker that died before reading shows as a closed socket to advance().
  writeFrame(fd_, queue_.back().bytes);
  return true;
}

void LayoutWorker::resend(std::vector<std::pair<int, Outcome>>& ended) {
  if (queue_.empty()) return;
  Outcome failed;
  if (!ensureStarted(&failed.why)) {
    failed.kind = Outcome::Unavailable;
    for (const auto& p : queue_) ended.push_back({p.tag, failed});
    queue_.clear();
    return;
  }
  deadline_ = timeoutMs_ < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeoutMs_);
  for (const auto& p : queue_) writeFrame(fd_, p.bytes);
}

std::vector<std::pair<int, LayoutWorker::Outcome>> LayoutWorker::advance(bool readable,
                                                                         const std::atomic<bool>* cancel) {
  std::vector<std::pair<int, Outcome>> ended;
  if (queue_.empty()) return ended;
  const auto cancelAll = [&] {
    stop(true);
    Outcome cancelled;
    cancelled.kind = Outcome::Cancelled;
    for (const auto& p : queue_) ended.push_back({p.tag, cancelled});
    queue_.clear();
  };
  if (cancel && cancel->load()) {
    cancelAll();
    return ended;
  }
  Outcome failure;
  bool failed = false;
  while (readable && !queue_.empty()) {
    QByteArray reply;
    Outcome out;
    // An answer has begun to arrive: the rest follows at once, unless the worker dies.
    const FrameRead read = readFrame(fd_, reply, 10000, cancel);
    if (read == FrameRead::Ok && dotResultFromBytes(reply, out.result)) {
      ++served_;
      ended.push_back({queue_.front().tag, std::move(out)});
      queue_.pop_front();
      deadline_ = timeoutMs_ < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeoutMs_);
      pollfd more{fd_, POLLIN, 0};
      readable = ::poll(&more, 1, 0) > 0;
      continue;
    }
    if (read == FrameRead::Cancelled) {
      cancelAll();
      return ended;
    }
    failed = true;
    failure.kind = Outcome::Died;
    if (read == FrameRead::Closed) {
      failure.why = stop(false);
    } else {
      stop(true);
      failure.why = QStringLiteral("the layout process sent a broken answer");
    }
    break;
  }
  if (!failed && !queue_.empty() && deadline_.hasExpired()) {
    stop(true);
    failed = true;
    failure.kind = Outcome::TimedOut;
    failure.why = QStringLiteral("no layout after %1 s").arg(timeoutMs_ / 1000.0);
  }
  if (!failed) return ended;
  // The worker is gone, failing on the job at the head. When it had served earlier jobs, that
  // job runs once more in a fresh worker; else it ends here. The jobs behind it go to the new one.
  Pending& head = queue_.front();
  if (served_ > 0 && head.attempt == 0) {
    head.attempt = 1;
    if (qEnvironmentVariableIsSet("GRAFT_LAYOUT_VERBOSE"))
      qInfo("layout worker failed after %d jobs (%s): the job runs again in a new worker", served_,
            qPrintable(failure.why));
  } else {
    ended.push_back({head.tag, failure});
    queue_.pop_front();
  }
  resend(ended);
  return ended;
}

LayoutWorker::Outcome LayoutWorker::run(const DotJob& job, int timeoutMs, const std::atomic<bool>* cancel) {
  Outcome out;
  if (!submit(toBytes(job), 0, timeoutMs, out)) return out;
  for (;;) {
    pollfd ready{fd_, POLLIN, 0};
    const int polled = ::poll(&ready, 1, 100);  // 100 ms: the cancel and the deadline are checked
    auto ended = advance(polled > 0, cancel);
    if (!ended.empty()) return std::move(ended.front().second);
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
