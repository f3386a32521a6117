#include "core/layout/forked_work.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace graft::core::layout {

namespace {

bool writeAll(int fd, const char* bytes, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, bytes, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    bytes += w;
    n -= size_t(w);
  }
  return true;
}

[[noreturn]] void childMain(int fd, const std::function<void(const SendResult&)>& work) {
  // The parent's handlers (a journal written on a crash, a quit on SIGTERM) are not the child's.
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGPIPE}) std::signal(s, SIG_DFL);
  const SendResult send = [fd](const QByteArray& bytes) {
    const quint32 size = quint32(bytes.size());
    if (!writeAll(fd, reinterpret_cast<const char*>(&size), sizeof size) || !writeAll(fd, bytes.constData(), size)) _exit(3);
  };
  work(send);
  // _exit: no atexit handlers or static destructors of the parent's libraries run twice.
  _exit(0);
}

}  // namespace

ForkedEnd runForked(const std::function<void(const SendResult&)>& work, const std::function<void(const QByteArray&)>& receive,
                    const std::atomic<bool>* cancel) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {ForkedEnd::Unavailable, QString::fromLocal8Bit(std::strerror(errno))};
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return {ForkedEnd::Unavailable, QString::fromLocal8Bit(std::strerror(error))};
  }
  if (pid == 0) {
    ::close(fds[0]);
    childMain(fds[1], work);
  }
  ::close(fds[1]);
  QByteArray pending;
  qsizetype used = 0;  // bytes of `pending` already handed to `receive`
  bool cancelled = false;
  for (;;) {
    if (cancel && cancel->load()) {
      cancelled = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd ready{fds[0], POLLIN, 0};
    const int polled = ::poll(&ready, 1, 100);
    if (polled == 0 || (polled < 0 && errno == EINTR)) continue;
    char chunk[1 << 16];
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;  // end of file: the child has finished or died
    pending.append(chunk, n);
    for (;;) {
      quint32 size = 0;
      if (pending.size() - used < qsizetype(sizeof size)) break;
      std::memcpy(&size, pending.constData() + used, sizeof size);
      if (pending.size() - used - qsizetype(sizeof size) < qsizetype(size)) break;
      receive(QByteArray(pending.constData() + used + sizeof size, size));
      used += qsizetype(sizeof size) + size;
    }
    if (used > 0) {
      pending.remove(0, used);
      used = 0;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (cancelled) return {ForkedEnd::Cancelled, {}};
  if (WIFSIGNALED(status)) return {ForkedEnd::Died, QString::fromLocal8Bit(strsignal(WTERMSIG(status)))};
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return {ForkedEnd::Died, QStringLiteral("exit code %1").arg(WEXITSTATUS(status))};
  return {ForkedEnd::Finished, {}};
}

}  // namespace graft::core::layout
