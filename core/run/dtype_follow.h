#pragma once
// What `model.half()` changes that a capture at float32 wrote down as float32. Tracing and
// torch.export record a dtype wherever the source took one from a tensor (`x.to(y.device)`,
// `.to(hidden.dtype)`, `dtype=x.dtype`) as the float32 it was then, and `torch.finfo(x.dtype).min`
// as float32's number. A run of the program's own ops at float16 therefore keeps float32 where
// the model under `.half()` would not (Bart's residual stream stays float32; T5's mask becomes
// -inf). Precision::casts chooses the question: Follow (the default) lets those recorded dtypes and
// extremes follow the run's dtype, as `.half()` would; AsWritten runs the program as written.
// A cast whose source names float32 (`.float()`, `torch.float32`) stays float32 either way, as it
// does under `.half()`; so does every cast an edit or rule added (only the capture's own nodes,
// unchanged, are read this way).
#include "core/model/revision.h"

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>

#include <vector>

namespace torch::jit { struct Node; }

namespace graft::core::run {

// The inputs of `node` (of `revision`) holding a dtype the capture recorded from the model's own
// dtype: its ScalarType arguments, when the node is the original program's, unchanged, and its
// source line takes a dtype from a tensor (takesDtypeFromATensor) without naming float32. A
// factory that took the default dtype (`torch.ones(n)`) stays float32, as under `.half()`. The
// value is read at run time: only float32 follows.
std::vector<int> followedDtypeInputs(const torch::jit::Node* node, const model::Revision& revision);

// Whether a source line takes a dtype from a tensor: `.to(`, `dtype`, `.type_as(`, `.new_…(`,
// `…_like(`.
bool takesDtypeFromATensor(const QString& sourceText);

// Whether a source line spells out float32 (`.float()`, `torch.float32`, `torch.float`).
bool namesFloat32(const QString& sourceText);

// Whether `dtype` cannot hold float32's largest finite value (float16, bfloat16).
bool narrowerThanFloat32(c10::ScalarType dtype);

// float32's finite extremes (±torch.finfo(torch.float32).max), which a capture records as numbers,
// as `dtype`'s (±torch.finfo(dtype).max) where `dtype` is narrower; other values unchanged.
double extremeAt(double value, c10::ScalarType dtype);

// `t` cast to `dtype`, its float32 extremes becoming `dtype`'s rather than infinities.
at::Tensor castWithExtremes(const at::Tensor& t, c10::ScalarType dtype);

}  // namespace graft::core::run
