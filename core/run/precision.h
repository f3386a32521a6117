#pragma once
// The numeric precision a run uses: floating weights, constants and inputs cast to one dtype (as
// `model.to(dtype)(x.to(dtype))` would), optionally with autocast's float32 ops kept in float32.
// The axis of a precision comparison. (Nodes kept in float32 on purpose are a rewrite:
// rewrite/keep_float32.h.)
#include "core/model/ids.h"

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <QtCore/QString>
#include <optional>

namespace graft::core::run {

// TensorFloat-32 for float32 convolutions and matrix products. On CUDA: PyTorch's default
// (cuDNN convolutions allow TF32, cuBLAS matrix products do not), on, or off for the run.
// Emulate: on any device, their float32 inputs are rounded to TF32's 10-bit mantissa first, as
// tensor cores do (a CPU stand-in for a CUDA run).
enum class Tf32 { Default, On, Off, Emulate };
// "default", "on", "off", "emulate" (nullopt for anything else).
std::optional<Tf32> tf32FromName(const QString& name);
QString tf32Name(Tf32 mode);
// TF32's unit roundoff: 10 explicit mantissa bits.
constexpr double kTf32UnitRoundoff = 1.0 / 2048;
// Ops whose float32 inputs TF32 rounds: convolutions, linear layers and matrix products.
bool tf32Rounds(const QString& op);
// `t` (float32) rounded to the nearest TF32 value; other dtypes unchanged.
at::Tensor roundToTf32(const at::Tensor& t);

// Which question a run at another dtype answers (run/dtype_follow.h): the model under
// `model.to(dtype)` (Follow: dtypes and extremes the capture recorded from the model's float32
// follow the run's dtype), or this program's ops at that dtype (AsWritten).
enum class Casts { Follow, AsWritten };
// "follow", "as-written" (nullopt for anything else).
std::optional<Casts> castsFromName(const QString& name);

struct Precision {
  std::optional<c10::ScalarType> dtype;  // unset: the model's own dtypes
  Casts casts = Casts::Follow;
  Tf32 tf32 = Tf32::Default;
  // Reductions and normalisations (softmax, layer_norm, sum, mean, …) kept in float32 too, as
  // autocast does.
  bool autocast = false;

  // TF32 on or off is a switch of the CUDA libraries, not a node-by-node run.
  bool isDefault() const { return !dtype && !autocast && tf32 != Tf32::Emulate; }
  // "float16", "bfloat16 (autocast)", "float16 (casts as written)", "as saved", "as saved (emulated TF32)".
  QString describe() const;
  // Which question a run at this dtype answers: "the model under model.half()" (Casts::Follow),
  // "this program's ops at float16, its float32 casts as written" (AsWritten); empty without one.
  QString question() const;
};

// A dtype as reports name it: "float16", "bfloat16", "float32", "float64" (libtorch's name otherwise).
QString dtypeName(c10::ScalarType dtype);
// The nn.Module method that converts a model to a floating dtype: "half", "bfloat16", "float", "double".
QString moduleMethod(c10::ScalarType dtype);

// "float16", "half", "bf16", "float64", "float32" (see model::dtypeFromName); floating dtypes only.
std::optional<c10::ScalarType> precisionDtype(const QString& name, QString* error);

// `value` with every floating tensor (in lists, tuples and dicts too) cast to `dtype` on `device`.
// `fresh`: a tensor the cast would hand back as is is cloned, so an in-place op cannot write into
// the value it came from. `leaveFloat64`: float64 tensors keep their dtype, as torch.autocast's
// casts leave them.
c10::IValue castFloating(const c10::IValue& value, std::optional<c10::ScalarType> dtype, c10::Device device,
                         bool fresh = false, bool leaveFloat64 = false);

// The dtype of the first float16 or bfloat16 tensor in `values` (nullopt when there is none).
std::optional<c10::ScalarType> firstLowerPrecisionDtype(const std::vector<c10::IValue>& values);

// Ops autocast keeps in float32 on lower-precision runs: reductions, normalisations, exp and log
// families, losses.
bool autocastKeepsFloat32(const QString& op);
// Ops autocast runs at the lower precision: convolutions, linear layers and matrix products.
bool autocastLowersPrecision(const QString& op);

// How a node treats the floating inputs it receives under `precision`.
enum class NodePrecision {
  AsReceived,          // runs on what it is given (type promotion decides)
  Float32,             // autocast's float32 list: float32 in and out
  RunDtype,            // autocast's lower-precision list: inputs cast to the run's dtype
};
NodePrecision nodePrecision(const Precision& precision, const QString& op);

// Unit roundoff of a floating dtype (half the distance from 1 to the next number): the error one
// rounding to it may introduce, relative to the value.
double unitRoundoff(c10::ScalarType dtype);

// The spacing of a floating dtype's subnormals (its smallest positive value): below the normal
// range a rounding errs by up to this much, however small the value (float32 1.4e-45, float16
// 6e-8, bfloat16 9.2e-41, float64 4.9e-324).
double subnormalSpacing(c10::ScalarType dtype);

// A floating dtype's largest finite value (torch.finfo(dtype).max): float16 65504, bfloat16 3.39e38.
double largestFinite(c10::ScalarType dtype);

}  // namespace graft::core::run
