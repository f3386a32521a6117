#include "core/layout/frame_io.h"

#include <QtCore/QDeadlineTimer>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace graft::core::layout {

namespace {
constexpr quint32 kMaxFrame = 1u << 30;

bool writeAll(int fd, const char* bytes, size_t n) {
  while (n > 0) {
    // MSG_NOSIGNAL: a worker that died must not take this process with a SIGPIPE.
    ssize_t w = ::send(fd, bytes, n, MSG_NOSIGNAL);
    if (w < 0 && errno == ENOTSOCK) w = ::write(fd, bytes, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    bytes += w;
    n -= size_t(w);
  }
  return true;
}
}  // namespace

bool writeFrame(int fd, const QByteArray& bytes) {
  const quint32 size = quint32(bytes.size());
  return writeAll(fd, reinterpret_cast<const char*>(&size), sizeof size) && writeAll(fd, bytes.constData(), size);
}

FrameRead readFrame(int fd, QByteArray& bytes, int timeoutMs, const std::atomic<bool>* cancel) {
  const QDeadlineTimer deadline = timeoutMs < 0 ? QDeadlineTimer(QDeadlineTimer::Forever) : QDeadlineTimer(timeoutMs);
  quint32 size = 0;
  qsizetype have = 0, want = sizeof size;  // the length first, then the bytes
  bool header = true;
  bytes.clear();
  for (;;) {
    if (cancel && cancel->load()) return FrameRead::Cancelled;
    if (deadline.hasExpired()) return FrameRead::TimedOut;
    const qint64 left = deadline.remainingTime();
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, cancel ? int(left < 0 ? 100 : std::min<qint64>(left, 100)) : int(left));
    if (polled == 0 || (polled < 0 && errno == EINTR)) continue;
    if (polled < 0) return FrameRead::Closed;
    char* into = header ? reinterpret_cast<char*>(&size) + have : bytes.data() + have;
    const ssize_t n = ::read(fd, into, size_t(want - have));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return FrameRead::Closed;
    have += n;
    if (have < want) continue;
    if (!header) return FrameRead::Ok;
    if (size > kMaxFrame) return FrameRead::Closed;  // not a frame: treat the peer as broken
    header = false;
    bytes.resize(size);
    have = 0;
    want = size;
    if (size == 0) return FrameRead::Ok;
  }
}

}  // namespace graft::core::layout
