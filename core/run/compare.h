#pragma once
// Comparing two runs: outputs element-wise and intermediates node by node.
#include "core/run/correspondence.h"
#include "core/run/culprit.h"
#include "core/run/executor.h"
#include "core/run/verdict.h"

#include <atomic>
#include <limits>
#include <optional>

namespace graft::core::model { class Document; }

namespace graft::core::run {

// How two values are judged. By default (`elementwise` false) by the rounding model
// (verdict.h): B's error against a float64 reference of A, allowed what the arithmetic in play
// explains. `elementwise` (the user's own --atol/--rtol): torch.allclose per element.
struct Tolerance {
  double atol = 1e-5;  // torch.allclose semantics: |a - b| <= atol + rtol * |b|
  double rtol = 1e-4;
  bool elementwise = false;
};

struct TensorDiff {
  double maxAbs = 0;
  double maxRel = 0;        // max |a-b| / max(|a|, |b|) over elements where either is not 0
  std::int64_t mismatched = 0;  // elements outside the tolerance
  std::int64_t numel = 0;
  bool allclose = true;
  double cosine = 1;        // of the flattened tensors; 1 when both are all zero
  double refMaxAbs = 0;     // the largest |a| or |b|: the scale of the values compared
  double sqnrDb = std::numeric_limits<double>::infinity();  // 10 log10(sum b^2 / sum (a-b)^2)
  QString note;             // set when shapes or kinds differ (then allclose is false)
  bool exact = false;       // bit-identical (NaN where the other side has NaN)
  bool integer = false;     // integer or bool values: compared for equality only
  std::int64_t nonFinite = 0;  // finite on one side, inf or NaN (or the other inf) on the other
  std::int64_t nanBoth = 0;    // NaN on both sides at the same place: equal
  // The rounding model: B's largest error over what the arithmetic explains (<= 1: within);
  // NaN when judged elementwise.
  double errorRatio = std::numeric_limits<double>::quiet_NaN();
  int rung = -1;            // the rounding model's rung that explains it (RoundingJudgement::rung)
  QString reason;           // one line: "within float32 rounding", "overflow: B is inf where A is 9.3e+05"
};

// `t` on the CPU as float64 (quantized tensors dequantized): what comparisons and statistics read.
at::Tensor asFloat64(const at::Tensor& t);
// Compares `a` with `b` (the reference side of rtol) on the CPU in float64. With `rounding` and a
// float64 reference `ref` of A's value, judged by the rounding model, else elementwise at `tol`.
// Never throws: a pair that cannot be compared is a failed diff with a note.
// `refMeasured`: A's value from a run with a measured rung's arithmetic (verdict.h), when any.
TensorDiff compareTensors(const at::Tensor& a, const at::Tensor& b, const Tolerance& tol,
                          const at::Tensor& ref = {}, const RoundingModel* rounding = nullptr,
                          const at::Tensor& refMeasured = {});
// Flattens tensors (and numbers, as 0-d tensors) out of nested tuples, lists and dicts (their
// insertion order), in order.
std::vector<at::Tensor> flattenTensors(const std::vector<c10::IValue>& values);
// The worst of several diffs (beyond tolerance first, then the largest max abs); its `numel` and
// `mismatched` add up over all of them.
TensorDiff worstOf(const std::vector<TensorDiff>& diffs);
// Per flattened tensor of two output lists; a count mismatch is one extra diff with a note.
// `ref` (A's values from a float64 run) and `rounding` as for compareTensors.
std::vector<TensorDiff> compareOutputs(const std::vector<c10::IValue>& a, const std::vector<c10::IValue>& b,
                                       const Tolerance& tol, const std::vector<c10::IValue>* ref = nullptr,
                                       const RoundingModel* rounding = nullptr,
                                       const std::vector<c10::IValue>* refMeasured = nullptr);

struct NodeDiff {
  model::NodeId nodeA = model::kNoNode, nodeB = model::kNoNode;
  QString opA, opB, modulePath;
  TensorDiff diff;  // the worst floating output (integers only when it has no floating output)
  int change = 0;   // 0: a node unchanged on both sides; N: an output leaving change group N
  // Precision or device comparisons: A's node run on its own inputs at B's precision and device,
  // against A's outputs: the error this node introduces itself.
  std::optional<TensorDiff> local;
  std::int64_t integerMismatched = 0;  // integer outputs (indices) that differ: reported, not judged
  bool writtenLater = false;  // A's output is written in place later: its recorded value is not its last
};

// A node whose values were not compared, and why (uninitialised memory, no value, inside a change).
struct NotCompared {
  model::NodeId node = model::kNoNode;
  QString op, modulePath;
  bool onB = false;
  int change = 0;  // inside change group N (its outputs are compared where they leave it)
  QString reason;
};

struct NodeComparison {
  std::vector<NodeDiff> nodes;           // compared pairs in A's execution order
  std::vector<ChangeGroup> changes;      // provenance matching: the change groups
  std::vector<NotCompared> notCompared;  // never counted as a divergence
  std::vector<const NodeRecord*> unmatchedA, unmatchedB;  // structure matching only
  std::optional<NodeDiff> firstBeyond;   // first row (A's execution order) beyond tolerance
};

enum class NodeMatching {
  ByProvenance,  // two revisions of one document, or a file Graft saved against its source
  ByStructure,   // two unrelated files: module path, op and order of occurrence
};

// Ops whose output is memory nobody wrote (aten::empty, new_empty, empty_like, …): never compared.
bool isUninitialised(const QString& op);

// Matches the recorded nodes of two instrumented runs (kept intermediates). By provenance
// (`la`, `lb`: both sides' origins in one root), unchanged copies pair and each change group
// is compared where its values leave it. By structure, nodes left over after the primary
// matching are paired through their consumers.
// `ref` (A run at float64, intermediates kept) and `rounding`: rows judged by the rounding model;
// `refMeasured`: A run with the measured rung's arithmetic (TF32 emulated), when the model has one.
NodeComparison compareNodes(const RunResult& a, const model::Revision& revA, const RunResult& b,
                            const model::Revision& revB, NodeMatching matching, const Tolerance& tol,
                            const model::Lineage* la = nullptr, const model::Lineage* lb = nullptr,
                            const RunResult* ref = nullptr, const RoundingModel* rounding = nullptr,
                            const RunResult* refMeasured = nullptr);

// Convenience: the whole comparison of two revisions on given inputs.
struct CompareOptions {
  Tolerance tol;
  c10::Device deviceA = c10::Device(c10::kCPU);
  c10::Device deviceB = c10::Device(c10::kCPU);
  Precision precisionA, precisionB;  // B at float16 against A as saved, A at float64, …
  bool perNode = false;  // always compare intermediates (otherwise only when outputs differ)
  NodeMatching matching = NodeMatching::ByProvenance;
  // ByProvenance: each side's origins in one root; null: the revisions' own lineages.
  std::shared_ptr<const model::Lineage> lineageA, lineageB;
  const std::atomic<bool>* cancel = nullptr;  // polled between nodes; a cancelled run fails
  Tf32 tf32 = Tf32::Default;  // CUDA sides: PyTorch's default, on or off; Emulate: B on any device
};

// How each side runs (device, precision, cancel flag), the rest left as RunOptions has it.
std::pair<RunOptions, RunOptions> sideRunOptions(const CompareOptions& options);

// Whether the two sides run at different precisions or on different devices: then every node's
// local error is measured too.
bool comparesPrecision(const CompareOptions& options);
// torch.testing's default tolerances for the lower precision of the two sides (float16: rtol
// 1e-3, bfloat16: 1.6e-2); the default Tolerance when neither side is below float32. What
// --atol/--rtol start from; the verdict uses the rounding model unless they are given.
Tolerance defaultTolerance(const CompareOptions& options);
// The rounding model of the two sides as the options run them (devices, precisions, TF32 where
// the revisions hold convolutions or matrix products it rounds).
RoundingModel roundingModel(const CompareOptions& options, const model::Revision& revA, const model::Revision& revB);
// The user's own tolerance: judged elementwise.
Tolerance elementwiseTolerance(double atol, double rtol);
// The rounding noise of the lower precision of the two sides, relative to a value's scale: a
// node (or subgraph) whose error stays below it is not where a failure comes from (culprit.h).
double noiseFloor(const CompareOptions& options);

struct CompareResult {
  bool ok = false;    // both runs completed
  QString error;      // which side failed and why
  model::NodeId errorNode = model::kNoNode;  // where the failing run stopped, when known
  bool errorOnB = false;
  std::vector<TensorDiff> outputs;
  bool equal = false;  // every output within tolerance
  std::optional<NodeComparison> nodes;  // when per-node or outputs differ
  std::shared_ptr<RunResult> runA, runB;  // the instrumented runs `nodes` points into
  // The judgement used: the rounding model (with a float64 reference of A) or elementwise at the
  // user's tolerance, or elementwise because A could not run at float64 (`reason` says why).
  bool roundingJudged = false;
  QString referenceError;  // why there is no float64 reference (empty when there is one)
  // Where the two sides differ in precision or device and the outputs differ: the node with the
  // largest local error above rounding noise (culprit.h).
  std::optional<Culprit> culprit;
  bool localErrors = false;  // rows carry `local`
  // The verdict, from the same rows as everything else: outputs differ (and where they first
  // part), outputs equal while an intermediate is beyond tolerance, or equal throughout.
  enum class Verdict { Equal, OutputsEqualIntermediateDiffers, OutputsDiffer };
  Verdict verdict() const;
  bool exact = false;  // every output bit-identical (NaN where the other side has NaN)
  // How the outputs agree, as every view words it: bit for bit, within rounding (the rounding
  // model judged), within the user's elementwise tolerance, or not (an intermediate differing
  // with equal outputs is Different here; verdict() tells it apart).
  enum class Agreement { Exact, WithinRounding, WithinTolerance, Different };
  Agreement agreement() const;
  // Why the verdict is what it is, in one line: "within float32 rounding (SQNR 130 dB)",
  // "overflow: B is inf where A is 9.3e+05", "beyond atol 1e-05, rtol 0.0001".
  QString reason;
  // The first row beyond tolerance when the outputs differ (null otherwise).
  const NodeDiff* firstDivergence() const;
  // The first intermediate beyond tolerance when the outputs are equal (null otherwise).
  const NodeDiff* intermediateDivergence() const;
  // A failed run as a "compare" error at the node it stopped; differing outputs as a warning
  // about the first divergence.
  model::Diagnostics diagnostics() const;
};

// Chooses how revisions of two documents pair (options.matching and lineages): through provenance
// when both trace back to one root (the same file or sample, or a file Graft saved from it),
// by structure otherwise. Returns true for provenance.
bool pairDocuments(const model::Document& a, const model::Revision& revA, const model::Document& b,
                   const model::Revision& revB, CompareOptions& options);

// Never throws: any failure comes back in CompareResult::error.
CompareResult compareRevisions(model::RevisionPtr a, model::RevisionPtr b, const InputSet& inputs,
                               const CompareOptions& options);

}  // namespace graft::core::run
