#pragma once
// Quantization error per module: a quantized model against its float twin, paired by module path.
#include "core/run/compare.h"
#include "core/run/executor.h"

#include <QtCore/QHash>
#include <QtCore/QStringList>
#include <atomic>

namespace graft::core::run {

// What a module hands on: the value one of its op nodes (its own or a submodule's) produced that
// a node outside the module (or the graph's return) reads. Where several such values leave a
// module, the one produced last is taken: a forward returns what it computed last, while values
// read outside earlier are side exits (a residual read by a sibling, a cached state).
struct ModuleOutput {
  QString modulePath;
  std::size_t record = 0;  // index into RunResult::nodes
  std::size_t output = 0;  // index into that record's outputs
};

// Every module path of `revision` (each prefix of every op node's path, the top level excluded)
// with its output in `run` (instrumented, keepIntermediates), in execution order: by the record
// taken, an inner module before the enclosing module that hands on the same value.
std::vector<ModuleOutput> moduleOutputs(const model::Revision& revision, const RunResult& run);

struct ModuleError {
  QString modulePath;
  model::NodeId node = model::kNoNode, floatNode = model::kNoNode;  // the op nodes taken
  QString op, floatOp;
  // The quantized value (dequantized) against the float one, the reference of sqnrDb:
  // 10 log10(sum float^2 / sum (float - quantized)^2). A shape mismatch is a note.
  TensorDiff diff;
};

struct ModuleErrorResult {
  bool ok = false;
  QString error;                                 // which side failed to run and why
  std::vector<ModuleError> modules;              // paths on both sides, in the quantized run's order
  QStringList onlyInQuantized, onlyInFloat;      // paths with op nodes on one side only
  // The row with the lowest SQNR among those compared without a note (null when none).
  const ModuleError* worst() const;
};

// Runs both revisions node by node on `inputs` and compares each shared module's output.
// Never throws.
ModuleErrorResult moduleErrors(model::RevisionPtr quantized, model::RevisionPtr floatTwin, const InputSet& inputs,
                               c10::Device device = c10::Device(c10::kCPU), const std::atomic<bool>* cancel = nullptr);

// For colouring the quantized graph: each op node's SQNR, that of the innermost module around it
// that was compared without a note; nodes at the top level or in unpaired modules are absent.
QHash<model::NodeId, double> sqnrByNode(const ModuleErrorResult& result, const model::Revision& quantized);

}  // namespace graft::core::run
