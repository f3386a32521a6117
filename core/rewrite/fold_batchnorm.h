#pragma once
// Graft's own batch-norm folding for frozen graphs: conv (aten::conv1d/2d/3d, aten::_convolution)
// or aten::linear followed by eval-mode aten::batch_norm with constant weights becomes the conv or
// linear alone with rescaled weight and bias. Analyses every candidate first, then transforms.
#include "core/rewrite/pattern_rewrite.h"

namespace graft::core::rewrite {

RewriteOutcome foldConvBatchNorm(torch::jit::Graph& graph, bool dryRun);
RewriteOutcome foldLinearBatchNorm(torch::jit::Graph& graph, bool dryRun);

}  // namespace graft::core::rewrite
