#pragma once
// Per-node and per-op timing of a revision over repeated runs, with the module's own forward
// over the same runs as the baseline. Plain data: the UI charts it, report/ exports it.
#include "core/model/ids.h"

#include <QtCore/QString>
#include <QtCore/QVector>

namespace graft::core::profile {

// One aten operator call seen by the RecordFunction callback.
struct OpEvent {
  QString name;         // "aten::_convolution"
  int run = 0;          // measured run index
  qint64 startNs = 0;   // since the profile started
  qint64 durationNs = 0;
  quint64 thread = 0;   // small lane number per OS thread
  int depth = 0;        // 0: called by the graph itself; > 0: called inside another op
  QString shapes;       // "[1, 64, 56, 56], [64, 64, 3, 3]"
  model::NodeId node = model::kNoNode;  // the graph node a depth-0 event belongs to
};

// One GPU kernel (or memcpy, memset) from the profiler's device activity (Kineto/CUPTI):
// core/profile/kernel_attribution.
struct KernelEvent {
  QString name;
  int run = -1;           // measured run index; -1 when its launch fell in no op's span
  qint64 startNs = 0;     // on the device, in the profile's clock
  qint64 durationNs = 0;
  qint64 launchNs = -1;   // host time of the runtime call that launched it; -1 when not recorded
  qint64 stream = 0;
  model::NodeId node = model::kNoNode;  // the graph node whose op launched it
};

struct Stats {
  double median = 0, p10 = 0, p90 = 0, q1 = 0, q3 = 0;
  double iqr() const { return q3 - q1; }
  static Stats of(QVector<double> values);
};

struct NodeTiming {
  model::NodeId node = model::kNoNode;
  QString op;
  QString modulePath;
  int calls = 0;        // events per run (1 for a plain op)
  Stats selfMs;         // over runs
  // With memory recorded: bytes the node allocated and still held when it returned (its outputs;
  // scratch it freed before returning shows in the peak only), over all its calls.
  qint64 allocBytes = 0;
  // On CUDA: the device time of the kernels the node launched (Profile::kernelsRecorded).
  int kernels = 0;      // kernels per run
  Stats kernelMs;       // over runs
};

// One op node of the memory timeline: the allocated level right after it ran, and the highest
// level since the op node before it returned (its inputs freed in between, then its outputs and
// scratch while it ran). The highest peakBytes of a timeline is the run's peak.
struct MemoryPoint {
  model::NodeId node = model::kNoNode;
  qint64 allocatedBytes = 0;  // above the level when the run started
  qint64 peakBytes = 0;       // the most allocated at once while it ran, on the same scale
};

struct OpKindTiming {
  QString op;
  int nodes = 0;        // graph nodes of this kind that ran
  Stats totalMs;        // per-run sum over those nodes
};

// Top-level events that no graph node accounts for, by op kind, with why.
struct UnmatchedKind {
  QString op;
  int events = 0;  // over all measured runs
  QString reason;
};

struct Profile {
  QString device;
  int warmup = 0;
  int threads = 0;             // intra-op threads the runs used
  QVector<double> runMs;      // each measured, profiled run
  QVector<double> forwardMs;  // the module's own forward, interleaved with the profiled runs
  Stats run;
  Stats forward;
  QVector<OpEvent> events;    // every event of every measured run
  QVector<NodeTiming> nodes;  // graph order
  QVector<OpKindTiming> byOp; // slowest first
  int unmatchedEvents = 0;    // depth-0 events no graph node accounted for
  QVector<UnmatchedKind> unmatched;
  bool cancelled = false;
  // On CUDA: kernels from the profiler's device activity, attributed to the nodes that launched
  // them; ops are then not synchronised, so a node's self time is its host (launch) time.
  bool kernelsRecorded = false;
  QVector<KernelEvent> kernels;   // every measured run's, in start order
  int unattributedKernels = 0;    // launched outside every top-level op (the interpreter, allocator)
  Stats kernel;                   // per run: the sum of all kernels' device time
  QString kernelNote;             // why kernels were not recorded on CUDA, when they were not
  // ProfileOptions::recordMemory: one separate, untimed node-by-node run's allocations.
  bool memoryRecorded = false;
  qint64 peakBytes = 0;                 // the most allocated at once, above the level at the start
  QVector<MemoryPoint> memoryTimeline;  // per op node, in run order
  double memoryRunMs = 0;               // that run's wall time
};

// A before/after speedup: median and IQR of the per-run ratios before/after, and a distribution-free
// interval of that median (order statistics of the paired ratios, at least 95% where there are 6
// or more pairs; with fewer it is their whole range). A speedup or a slowdown is shown only where
// the interval excludes 1.
struct Speedup {
  double median = 0;
  double q1 = 0;
  double q3 = 0;
  double low = 0, high = 0;  // the interval of the median
  int pairs = 0;
  // Beyond 1 by at least half a percent, so that the interval printed to two decimals never
  // reads "0.53–1.00×" beside a claim.
  bool faster() const { return pairs > 0 && low >= 1.005; }
  bool slower() const { return pairs > 0 && high <= 0.995; }
};
Speedup speedup(const Profile& before, const Profile& after);

}  // namespace graft::core::profile
