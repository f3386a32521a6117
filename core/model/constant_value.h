#pragma once
// The value of a folded input (model/folding.h): a prim::Constant, or a list or tuple built only
// from constants. Two spellings of one constant list (a frozen load's int[] constant and a saved
// file's ListConstruct of ints) give the same value.
#include <ATen/core/ivalue.h>

#include <optional>

namespace torch::jit { struct Value; }

namespace graft::core::model {

std::optional<c10::IValue> constantValue(const torch::jit::Value* value);

// Whether two constants hold the same value: the one definition by which a node reading one
// instead of the other computes the same thing (a change's provenance, a diff, a comparison's
// change groups). Tensors by dtype, shape, device and numbers (the very same tensor needs no
// reading; another tensor of equal numbers, as libtorch's CSE leaves when it merges two zero
// biases, is the same constant), lists and tuples item by item, scalars, strings and devices by
// value (an int is not a float), anything else by its printed form.
bool sameConstantValue(const c10::IValue& a, const c10::IValue& b);

}  // namespace graft::core::model
