#pragma once
// A torch.export program states the sizes its symbolic dimensions may take (range_constraints:
// "2 ≤ s77 ≤ 8") and that one symbol is one size wherever it appears. Stock PyTorch refuses
// inputs outside them; so does Graft, before anything runs, naming the input, the dimension and
// the constraint.
#include "core/model/symbol_ranges.h"

#include <ATen/core/ivalue.h>

#include <QtCore/QString>
#include <vector>

namespace torch::jit { struct Graph; }

namespace graft::core::run {

// Empty when `inputs` (the user inputs, without `self`) fit the symbolic dimensions of `graph`'s
// inputs, else why not.
QString checkSymbolicDimensions(const torch::jit::Graph& graph, const std::vector<c10::IValue>& inputs,
                                const model::SymbolRanges& ranges);

}  // namespace graft::core::run
