#pragma once
// Graft's own batch-norm folding for frozen graphs: conv (aten::conv1d/2d/3d, aten::_convolution)
// or aten::linear followed by eval-mode aten::batch_norm with constant weights becomes the conv or
// linear alone with rescaled weight and bias. Analyses every candidate first, then transforms.
#include "core/rewrite/pattern_rewrite.h"

namespace graft::core::rewrite {

// With `onlyAt`, folds only the pair holding that node (the conv/linear or its batch_norm).
RewriteOutcome foldConvBatchNorm(torch::jit::Graph& graph, bool dryRun, const torch::jit::Node* onlyAt = nullptr);
RewriteOutcome foldLinearBatchNorm(torch::jit::Graph& graph, bool dryRun, const torch::jit::Node* onlyAt = nullptr);

}  // namespace graft::core::rewrite
