#pragma once
// A lower-precision run of a real program. Programs exported at float32 assert their dtypes
// (`aten::_assert_tensor_metadata`) and cast explicitly (`.to(torch.float32)` before a softmax,
// `.to(input_dtype)` after a norm), so a run of the whole program at float16 or bfloat16 fails
// where stock `model.half()` fails too. A precision debugger has to get past that, the way
// torch.autocast would:
// - a dtype assert on a floating tensor that holds another floating dtype is relaxed (its shape,
//   device and layout are still asserted);
// - explicit casts are kept as written: a float32 cast stays float32;
// - an op autocast runs at the lower precision (matrix products, linear, convolutions) given
//   floating inputs of mixed dtypes takes them all at the run's dtype;
// - any other op that fails on mixed floating dtypes is run again with them unified: at float32
//   for autocast's float32 ops, at the run's dtype otherwise.
// Each relaxation is said, one line per node (RunResult::relaxed). Internal to core.
#include "core/run/precision.h"

#include <ATen/core/stack.h>

#include <QtCore/QString>

namespace graft::core::run {

// Applies the relaxations that are known before `op` runs to its inputs `stack` under
// `precision` (dtype set). Returns what it did ("float32 assert relaxed for a bfloat16 tensor"),
// empty when nothing. When the inputs hold mixed floating dtypes it did not unify, `retry` (when
// given) receives a copy of them for unifyFloatingInputs after a failure.
QString relaxForPrecision(const QString& op, const Precision& precision, torch::jit::Stack& stack, c10::Device device,
                          torch::jit::Stack* retry);

// Casts the floating inputs of `op` to one dtype (float32 for autocast's float32 ops, the run's
// dtype otherwise). Returns what it did, empty when the inputs were already of one dtype.
QString unifyFloatingInputs(const QString& op, const Precision& precision, torch::jit::Stack& stack,
                            c10::Device device);

// One line for a run's report: "side B (bfloat16): 12 dtype asserts relaxed, 3 ops' mixed dtypes
// cast, the way autocast would"; empty when nothing was relaxed. `relaxed` may repeat lines (a
// side run more than once): each is counted once.
QString relaxedSummary(const QString& side, const QStringList& relaxed);

}  // namespace graft::core::run
