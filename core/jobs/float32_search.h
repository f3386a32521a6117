#pragma once
// Precision bisection (Polygraphy's `debug precision`): for a float16 or bfloat16 run whose
// outputs leave tolerance, a small set of nodes to keep in float32 so that they pass. Nodes are
// ranked by the error each introduces itself (local error); a bisection over that ranking finds
// how many of the worst must be kept (O(log N) runs), then each is dropped again while the
// outputs still pass. The answer is a revision with casts around those nodes
// (rewrite/keep_float32.h), checked as it will be saved.
#include "core/rewrite/keep_float32.h"
#include "core/run/compare.h"

#include <functional>

namespace graft::core::jobs {

struct Float32Search {
  bool ok = false;
  QString error;                     // worded for the user
  bool noKeepSet = false;            // ran, but no set of float32 nodes makes it pass (`error` says so)
  bool passesAlready = false;        // the lower-precision run is within tolerance as it is
  std::vector<model::NodeId> nodes;  // kept in float32, in graph order
  model::RevisionPtr revision;       // `nodes` wrapped in casts; null when none are needed
  rewrite::FloatingValues floating;  // the values the reference run found floating (for replay)
  // How the answer is stored (keep_float32.h): the program at the lower precision with the kept
  // nodes in float32, so that stock PyTorch runs the file as it is or after `.half()`; under
  // autocast the float32 program with the kept nodes in float64, which autocast leaves alone.
  // (Weights that are module attributes stay as they are, for `.half()` to convert.)
  rewrite::MixedPrecision stored;
  run::TensorDiff before, after;          // the worst output at the lower precision, without and with
  int runs = 0;                      // comparisons of the outputs it took (the first included)
  int ranked = 0;                    // nodes with a local error: the bisection's N
};

// Compares the revision (A) with `b` at the lower precision, outputs only: where B runs.
using CheckOnB = std::function<run::CompareResult(const model::RevisionPtr& b)>;

// `options.precisionB` is the lower precision; `precisionA`/`deviceA` the reference. `checkOnB`
// (a remote device: remote/remote_compare.h) runs the lower-precision side of each check (the
// revision as it is, then each candidate as it will be saved) instead of this machine; the
// ranking's local errors still come from a node-by-node run here.
Float32Search findFloat32Nodes(const model::RevisionPtr& revision, const model::InputSet& inputs,
                               const run::CompareOptions& options, model::NodeIdSource& ids,
                               const CheckOnB& checkOnB = nullptr);

}  // namespace graft::core::jobs
