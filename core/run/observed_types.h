#pragma once
// What each value of a revision is in one node-by-node run, for the diagram's edge labels where
// the graph records no shape: a TorchScript model records none, and a node a rewrite inserts
// has none until it runs (as torch.fx's ShapeProp fills node.meta).
#include "core/model/document.h"
#include "core/run/input_values.h"

#include <atomic>
#include <memory>

namespace graft::core::run {

// True when some tensor value of `revision` has no recorded sizes (its edge would read "Tensor").
bool lacksShapes(const model::Revision& revision);

// One instrumented run of `revision` on `inputs`: each tensor value ("float32 [1, 64, 56, 56]",
// model::formatTensorType) by debug name, a node in a loop as its first run left it. Null when
// the run fails (`error` says why) or `cancel` was set.
std::shared_ptr<const model::ObservedTypes> observeTypes(const model::RevisionPtr& revision, const InputSet& inputs,
                                                         const std::atomic<bool>* cancel, QString* error);

}  // namespace graft::core::run
