#pragma once
// Runs a Revision: the fast path (libtorch's own forward) or the instrumented path that walks the
// graph node by node, recording each op node's outputs and self time by NodeId.
#include "core/model/diagnostic.h"
#include "core/model/ids.h"
#include "core/model/revision.h"
#include "core/run/input_values.h"
#include "core/run/precision.h"

#include <c10/core/Device.h>

#include <QtCore/QString>
#include <QtCore/QStringList>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace graft::core::run {

class DeviceForward;

// One op node as executed: its outputs (on the run's device) and its own time.
struct NodeRecord {
  model::NodeId id = model::kNoNode;
  QString op;          // "aten::conv2d"
  QString modulePath;  // "layer1.0.conv1", empty at top level
  std::vector<c10::IValue> outputs;  // kept only when RunOptions::keepIntermediates
  double selfMs = 0;
  // RunOptions::local: the same node run once more on these inputs at the local precision and
  // device (empty with `localError` set when that run failed).
  std::vector<c10::IValue> localOutputs;
  QString localError;
  bool writtenLater = false;  // an output is written in place later (new_zeros then fill_)
};

// A second precision and device each op node is also run at, on the very inputs it received:
// the error a node introduces itself, apart from the error it inherited.
struct LocalRun {
  c10::Device device = c10::Device(c10::kCPU);
  Precision precision;
};

struct RunOptions {
  c10::Device device = c10::Device(c10::kCPU);
  bool instrumented = false;
  bool keepIntermediates = false;  // instrumented only: keep every op node's outputs
  Precision precision;             // anything but the default runs instrumented
  std::optional<LocalRun> local;   // with keepIntermediates: fills NodeRecord::localOutputs
  // Instrumented only: called after each op node ran, with its outputs in the record (which keeps
  // them afterwards only with keepIntermediates), for profiling and shapes without keeping values.
  std::function<void(const NodeRecord&)> onNode;
  const std::atomic<bool>* cancel = nullptr;  // instrumented only: polled before each node
};

struct RunError {
  QString message;  // libtorch's message without backtrace, first lines
  model::NodeId node = model::kNoNode;
  QString op;
  QString modulePath;
  QString headline() const;  // "aten::conv2d (node 12, layer1.0.conv1): <message>"
  model::Diagnostic diagnostic(const QString& job) const;  // the headline as an error about `node`
};

struct RunResult {
  bool ok = false;
  RunError error;
  std::vector<c10::IValue> outputs;  // forward's result, tuples/lists flattened one level kept as is
  std::vector<NodeRecord> nodes;     // instrumented: op nodes in execution order
  double totalMs = 0;
  // "program exported for cpu, run on cuda:0" when the run remapped the program's device
  // (device_remap.h); empty otherwise.
  QString deviceNote;
  // What a lower-precision run let pass the way autocast would (precision_relax.h), one line per
  // node: "aten::_assert_tensor_metadata (node 52, module model): float32 assert relaxed for bfloat16".
  QStringList relaxed;
};

// Runs graphs as written while it lives: the optimising executor would fuse and specialise (and
// time itself on the first calls), and then the fast path no longer matches the node-by-node path
// bit for bit, nor the profile the graph. Scoped to the run, never left off: with the
// optimiser off, a later freeze_module (io::load) fails with "Couldn't find method 'forward'".
// The one guard for runs, compares and profiles.
class GraphAsWritten {
 public:
  GraphAsWritten();
  ~GraphAsWritten();
  GraphAsWritten(const GraphAsWritten&) = delete;
  GraphAsWritten& operator=(const GraphAsWritten&) = delete;

 private:
  bool previous_;
};

// Prepares a revision once (operations resolved per node) and runs it any number of times.
// Not thread-safe: one run at a time per Executor.
class Executor {
 public:
  explicit Executor(model::RevisionPtr revision);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Never throws: failures (wrong shapes, dtypes, unsupported nodes) come back in RunResult::error,
  // naming the node that raised. On the fast path a failure is re-run instrumented to find it.
  RunResult run(const InputSet& inputs, const RunOptions& options);

  const model::Revision& revision() const { return *revision_; }

  // Whether CUDA can be used (a CUDA build of libtorch and a device present).
  static bool cudaAvailable();
  // "cpu", "cuda", "cuda:1" -> device; error text when unknown or unavailable.
  static std::optional<c10::Device> parseDevice(const QString& name, QString* error);

 private:
  struct Plan;
  model::RevisionPtr revision_;
  std::unique_ptr<Plan> plan_;
  QString planError_;  // set when the node-by-node plan could not be built
  bool reachesOutside_ = false;  // an op with an effect outside the process (outside_effects.h)
  QString unknownOperator_;      // why a run cannot reach an op this libtorch lacks (unknown_ops.h)
  std::unique_ptr<DeviceForward> deviceForward_;  // the fast path off the CPU, built on first use
};


}  // namespace graft::core::run
