#pragma once
// Work done in a forked child process, its results streamed back through a pipe. Graphviz can
// crash on some graphs, and a crash it survives (the signal guard) can leave its heap corrupt so
// that a later layout aborts or hangs: in a child, a crash ends only the child, and this process's
// Graphviz never runs a layout at all. The child is a copy of this process at the fork, so the
// work reads everything the caller holds without serializing it; only results travel.
#include <QtCore/QByteArray>
#include <QtCore/QString>

#include <atomic>
#include <functional>

namespace graft::core::layout {

struct ForkedEnd {
  enum Kind {
    Finished,     // the child returned from the work and exited
    Died,         // killed by a signal or exited with an error: `why` says how
    Cancelled,    // `cancel` was set; the child was killed
    Unavailable,  // no child could be started (`why`): the caller does the work itself
  };
  Kind kind = Finished;
  QString why;
};

using SendResult = std::function<void(const QByteArray&)>;

// Runs `work(send)` in a child; every `send(bytes)` there reaches `receive(bytes)` here, whole and
// in order, as it arrives. `cancel` is polled ten times a second.
ForkedEnd runForked(const std::function<void(const SendResult&)>& work, const std::function<void(const QByteArray&)>& receive,
                    const std::atomic<bool>* cancel = nullptr);

}  // namespace graft::core::layout
