#pragma once
// Reduction of a failing precision or device comparison to the smallest subgraph that still fails
// when it is fed the reference side's values at its boundary (Polygraphy's `debug reduce`, on
// Graft's graph): the failing node is where the full run first leaves tolerance; a bisection over
// the topological order then finds the latest start that still fails (O(log N) subgraph runs),
// and nodes are removed one at a time while it keeps failing.
#include "core/run/compare.h"

#include <functional>

namespace graft::core::run {

struct ReduceResult {
  bool ok = false;
  QString error;                      // why no subgraph could be found, worded for the user
  bool nothingFails = false;          // the error is that the comparison passes
  model::RevisionPtr subgraph;        // the failing subgraph: its own forward, derived from A
  std::vector<model::NodeId> nodes;   // A's op nodes it holds, in order
  std::vector<c10::IValue> boundary;  // the reference values its inputs take (on the CPU)
  QStringList boundaryNames;          // where each comes from: "layer1.0.relu (aten::relu) output 0"
  model::NodeId failing = model::kNoNode;  // the node whose outputs fail in the subgraph
  TensorDiff failure;                 // those outputs against the reference in the final subgraph
  int runs = 0;                       // subgraph runs (full runs of the model included)
  int bisectionRuns = 0;
  int removalRuns = 0;
  int candidateNodes = 0;             // op nodes before the failing one: the bisection's N
};

// Runs the failing side somewhere else (a host over SSH: remote/remote_reduce.h): `revision` (the
// model, then each candidate subgraph) on `inputs` at B's precision and device, each op node's
// outputs recorded when `nodeByNode`. Nullopt with `error` set when it could not run.
using RunOnB = std::function<std::optional<RunResult>(const model::RevisionPtr& revision, const InputSet& inputs,
                                                      bool nodeByNode, QString* error)>;

// `revision` run at `options.precisionA`/`deviceA` is the reference, at `precisionB`/`deviceB`
// the side that fails (`options.tol` decides what fails). With `runOnB`, B's runs go there and
// each node's local error (which ranks the culprit) is measured on this machine's CPU. Never throws.
ReduceResult reduceFailure(const model::RevisionPtr& revision, const InputSet& inputs, const CompareOptions& options,
                           model::NodeIdSource& ids, const RunOnB& runOnB = nullptr);

}  // namespace graft::core::run
