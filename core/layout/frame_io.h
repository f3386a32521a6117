#pragma once
// Length-prefixed messages over a socket or pipe, between Graft and its layout worker process:
// a 4-byte length in host order, then the bytes.
#include <QtCore/QByteArray>

#include <atomic>

namespace graft::core::layout {

// Whole frame written; false when the other end is gone (never SIGPIPE on a socket).
bool writeFrame(int fd, const QByteArray& bytes);

enum class FrameRead { Ok, Closed, TimedOut, Cancelled };
// Reads one frame. `timeoutMs` < 0 waits forever; `cancel` is polled ten times a second.
FrameRead readFrame(int fd, QByteArray& bytes, int timeoutMs = -1, const std::atomic<bool>* cancel = nullptr);

}  // namespace graft::core::layout
