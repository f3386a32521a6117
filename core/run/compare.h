#pragma once
// Comparing two runs: outputs element-wise and intermediates node by node.
#include "core/run/executor.h"

#include <atomic>
#include <optional>

namespace graft::core::run {

struct Tolerance {
  double atol = 1e-5;  // torch.allclose semantics: |a - b| <= atol + rtol * |b|
  double rtol = 1e-4;
};

struct TensorDiff {
  double maxAbs = 0;
  double maxRel = 0;        // max |a-b| / |b| over elements where b != 0
  std::int64_t mismatched = 0;  // elements outside the tolerance
  std::int64_t numel = 0;
  bool allclose = true;
  double cosine = 1;        // of the flattened tensors; 1 when both are all zero
  QString note;             // set when shapes or kinds differ (then allclose is false)
};

// `t` on the CPU as float64 (quantized tensors dequantized): what comparisons and statistics read.
at::Tensor asFloat64(const at::Tensor& t);
// Compares `a` with `b` (the reference side of rtol) on the CPU in float64.
// Never throws: a pair that cannot be compared is a failed diff with a note.
TensorDiff compareTensors(const at::Tensor& a, const at::Tensor& b, const Tolerance& tol);
// Flattens tensors (and numbers, as 0-d tensors) out of nested tuples, lists and dicts (their
// insertion order), in order.
std::vector<at::Tensor> flattenTensors(const std::vector<c10::IValue>& values);
// Per flattened tensor of two output lists; a count mismatch is one extra diff with a note.
std::vector<TensorDiff> compareOutputs(const std::vector<c10::IValue>& a, const std::vector<c10::IValue>& b,
                                       const Tolerance& tol);

struct NodeDiff {
  model::NodeId nodeA = model::kNoNode, nodeB = model::kNoNode;
  QString opA, opB, modulePath;
  TensorDiff diff;  // the worst of the node's outputs
};

struct NodeComparison {
  std::vector<NodeDiff> nodes;           // matched pairs in A's execution order
  std::vector<const NodeRecord*> unmatchedA, unmatchedB;
  std::optional<NodeDiff> firstDivergence;  // first pair (topological order) beyond tolerance
};

enum class NodeMatching {
  ById,         // two revisions of one document: NodeIds are shared
  ByStructure,  // two files: module path, op and order of occurrence
};

// Matches the recorded nodes of two instrumented runs (kept intermediates). Nodes left over
// after the primary matching are paired through their consumers: a replaced node (relu -> gelu)
// feeds the same matched node at the same input as the node it replaced.
NodeComparison compareNodes(const RunResult& a, const model::Revision& revA, const RunResult& b,
                            const model::Revision& revB, NodeMatching matching, const Tolerance& tol);

// Convenience: the whole comparison of two revisions on given inputs.
struct CompareOptions {
  Tolerance tol;
  c10::Device deviceA = c10::Device(c10::kCPU);
  c10::Device deviceB = c10::Device(c10::kCPU);
  bool perNode = false;  // always compare intermediates (otherwise only when outputs differ)
  NodeMatching matching = NodeMatching::ById;
  const std::atomic<bool>* cancel = nullptr;  // polled between nodes; a cancelled run fails
};

struct CompareResult {
  bool ok = false;    // both runs completed
  QString error;      // which side failed and why
  model::NodeId errorNode = model::kNoNode;  // where the failing run stopped, when known
  bool errorOnB = false;
  std::vector<TensorDiff> outputs;
  bool equal = false;
  std::optional<NodeComparison> nodes;  // when per-node or outputs differ
  std::shared_ptr<RunResult> runA, runB;  // the instrumented runs `nodes` points into
  // A failed run as a "compare" error at the node it stopped; differing outputs as a warning
  // about the first divergence.
  model::Diagnostics diagnostics() const;
};

// Never throws: any failure comes back in CompareResult::error.
CompareResult compareRevisions(model::RevisionPtr a, model::RevisionPtr b, const InputSet& inputs,
                               const CompareOptions& options);

}  // namespace graft::core::run
