#pragma once
// Graft's side of the layout worker: a small process (the graft-layout-worker executable, which
// holds no model and no libtorch) that runs Graphviz for every layout request, one DotJob at a
// time over a socket. It is spawned when the first LayoutEngine is made (the GUI's canvas makes
// its engine with the main window, before a model is loaded), and reused. A crash or hang in
// Graphviz ends only the worker: the job reports how it ended, and the next job starts a new
// worker. Graphviz never runs in Graft's own process.
#include "core/layout/dot_job.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QString>

#include <atomic>
#include <deque>
#include <memory>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace graft::core::layout {

class LayoutWorker {
 public:
  struct Outcome {
    enum Kind {
      Done,         // `result` came back (it may still carry a caught exception in `result.error`)
      Died,         // the worker crashed or exited: `why` says how
      TimedOut,     // no answer within the timeout: the worker was killed
      Cancelled,    // `cancel` was set: the worker was killed
      Unavailable,  // no worker could be started (`why`)
    };
    Kind kind = Done;
    QString why;
    DotResult result;
  };

  LayoutWorker() = default;
  ~LayoutWorker();
  LayoutWorker(const LayoutWorker&) = delete;
  LayoutWorker& operator=(const LayoutWorker&) = delete;

  // Lays out `job` in the worker (started first if none runs). When a worker that had served
  // earlier jobs dies or stalls on this one, the job runs once more in a new worker: Graphviz's
  // state from earlier layouts is then out of the question. `timeoutMs` < 0: no timeout.
  Outcome run(const DotJob& job, int timeoutMs, const std::atomic<bool>* cancel = nullptr);
  // Several jobs in flight, for one thread serving several workers: submit() sends a job (the
  // worker takes them in order; false: no worker could be started, `failed` says why), and
  // advance() - called whenever fd() is readable (`readable`) and at least every 100 ms -
  // returns the jobs that ended, by their tags. canTake() keeps what is in flight small enough
  // that a write never waits for the worker.
  bool canTake(qsizetype bytes) const;
  bool submit(QByteArray job, int tag, int timeoutMs, Outcome& failed);
  std::vector<std::pair<int, Outcome>> advance(bool readable, const std::atomic<bool>* cancel);
  int queued() const { return int(queue_.size()); }
  int fd() const { return fd_; }
  // Starts the process now if none runs; false (with `why`) when none could be started.
  bool ensureStarted(QString* why = nullptr);
  pid_t pid() const { return pid_; }  // -1 when no worker process runs

  // A process-wide pool of idle workers, so that engines made and dropped (a diff view, each
  // graft-cli command) reuse one worker. take() hands out an idle worker or a new one.
  static std::unique_ptr<LayoutWorker> take();
  static void give(std::unique_ptr<LayoutWorker> worker);
  // Worker processes started by this process so far (a test hook).
  static int starts();

 private:
  // After the worker died: starts a new one and sends it every queued job again (or ends them
  // all as Unavailable).
  void resend(std::vector<std::pair<int, Outcome>>& ended);
  QString stop(bool kill);  // ends the process; says how it ended

  int fd_ = -1;
  pid_t pid_ = -1;
  int served_ = 0;  // jobs answered by the current process
  struct Pending {
    int tag = 0;
    QByteArray bytes;
    int attempt = 0;  // 1: running again after a worker that had served earlier jobs failed on it
  };
  std::deque<Pending> queue_;  // sent, not answered yet, in order
  int timeoutMs_ = -1;
  QDeadlineTimer deadline_;  // for the job at the head of the queue
};

}  // namespace graft::core::layout
