#pragma once
// What each value of a revision is in one node-by-node run, for the diagram's edge labels where
// the graph records no shape: a TorchScript model records none, and a node a rewrite inserts
// has none until it runs (as torch.fx's ShapeProp fills node.meta).
#include "core/model/document.h"
#include "core/run/input_set.h"

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

// Finds `revision`'s shapes once, where its graph records none and its inputs are known (the
// document's own, `inputSpec`, a sample's), and keeps them in `document`. A run that fails keeps
// an empty answer, so it is not tried again for that revision; unknown inputs keep none.
void findShapes(const model::Document& document, const model::RevisionPtr& revision, const QString& inputSpec);

}  // namespace graft::core::run
