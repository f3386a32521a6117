#pragma once
// The value of a folded input (model/folding.h): a prim::Constant, or a list or tuple built only
// from constants. Two spellings of one constant list (a frozen load's int[] constant and a saved
// file's ListConstruct of ints) give the same value.
#include <ATen/core/ivalue.h>

#include <optional>

namespace torch::jit { struct Value; }

namespace graft::core::model {

std::optional<c10::IValue> constantValue(const torch::jit::Value* value);

}  // namespace graft::core::model
