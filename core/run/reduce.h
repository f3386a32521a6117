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

// `revision` run at `options.precisionA`/`deviceA` is the reference, at `precisionB`/`deviceB`
// the side that fails (`options.tol` decides what fails). Never throws.
ReduceResult reduceFailure(const model::RevisionPtr& revision, const InputSet& inputs, const CompareOptions& options,
                           model::NodeIdSource& ids);

}  // namespace graft::core::run
