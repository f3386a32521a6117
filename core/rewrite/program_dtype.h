#pragma once
// A program at another floating dtype, as `model.to(dtype)` (`.half()`) makes the model and a
// capture would then have recorded it: floating constants (a frozen model's and a program's
// weights) stored at it, with float32's extremes as its own; the dtypes and extremes the capture
// recorded from the model's float32 following it (run/dtype_follow.h); dtype asserts checking
// sizes, device and layout only; floating inputs cast to it on entry. Stock PyTorch runs it as it
// is, after `.half()`, on float32 or float16 inputs: what the precision is kept in (rewrite/
// keep_float32.h) and what a remote host runs for --dtype-b (remote/remote_compare.h).
#include "core/model/revision.h"

#include <c10/core/ScalarType.h>

#include <functional>
#include <utility>
#include <vector>

namespace torch::jit { struct Value; }

namespace graft::core::rewrite {

// Converts `copy` (base.cloneGraph()) in place; `floating` says which graph inputs hold floating
// tensors. Returns the casts of the graph's inputs it added, each with the input it casts.
std::vector<std::pair<torch::jit::Value*, torch::jit::Value*>> convertProgramTo(
    model::Revision::GraphCopy& copy, const model::Revision& base,
    const std::function<bool(const torch::jit::Value*)>& floating, c10::ScalarType dtype);

// `base` at `dtype` as a revision of its own; `floatingInput(i)`: whether user input i (0-based)
// holds a floating tensor. Null with `error` set for a model that is not frozen.
model::RevisionPtr programAtDtype(const model::Revision& base, c10::ScalarType dtype,
                                  const std::function<bool(size_t input)>& floatingInput, model::NodeIdSource& ids,
                                  QString* error);

}  // namespace graft::core::rewrite
