#pragma once
// Whether a rewritten graph is still well typed, checked before it becomes a revision: a rule's
// replacement that returns an int where a Tensor is expected would otherwise give a model that
// runs here but that neither Graft nor torch.jit.load can open again ("annotated as Tensor but is
// actually of type int").
#include <ATen/core/jit_type_base.h>

#include <QtCore/QString>

#include <vector>

namespace torch::jit { struct Graph; }

namespace graft::core::rewrite {

// Empty when every value of `graph` fits each of its uses, else the first misfit, worded for the
// user: a graph output against `outputTypes` (the types forward returned before the rewrite), a
// list or tuple element against its container, and a block's result against its prim::If or
// prim::Loop output. (An operator's arguments against its schemas are passes.h's checkSchemas.)
QString checkValueTypes(const torch::jit::Graph& graph, const std::vector<c10::TypePtr>& outputTypes);

}  // namespace graft::core::rewrite
