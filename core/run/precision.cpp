#include "core/run/precision.h"

#include "core/model/dtype_names.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

namespace graft::core::run {

QString dtypeName(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return QStringLiteral("float16");
    case c10::kFloat: return QStringLiteral("float32");
    case c10::kDouble: return QStringLiteral("float64");
    default: return QString::fromLatin1(c10::toString(dtype)).toLower();
  }
}

QString moduleMethod(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return QStringLiteral("half");
    case c10::kBFloat16: return QStringLiteral("bfloat16");
    case c10::kDouble: return QStringLiteral("double");
    default: return QStringLiteral("float");
  }
}

QString Precision::describe() const {
  QString text = dtype ? dtypeName(*dtype) : QStringLiteral("as saved");
  if (autocast) text += QStringLiteral(" (autocast)");
  if (dtype && casts == Casts::AsWritten) text += QStringLiteral(" (casts as written)");
  if (tf32 == Tf32::Emulate) text += QStringLiteral(" (emulated TF32)");
  return text;
}

QString Precision::question() const {
  if (!dtype) return {};
  if (casts == Casts::AsWritten) {
    Precision plain = *this;
    plain.casts = Casts::Follow;
    return QStringLiteral("this program's ops at %1, its float32 casts as written").arg(plain.describe());
  }
  return QStringLiteral("the model under model.%1()").arg(moduleMethod(*dtype));
}

std::optional<Casts> castsFromName(const QString& name) {
  const QString n = name.trimmed().toLower();
  if (n == QLatin1String("follow")) return Casts::Follow;
  if (n == QLatin1String("as-written")) return Casts::AsWritten;
  return std::nullopt;
}

std::optional<Tf32> tf32FromName(const QString& name) {
  const QString n = name.trimmed().toLower();
  if (n == QLatin1String("default")) return Tf32::Default;
  if (n == QLatin1String("on")) return Tf32::On;
  if (n == QLatin1String("off")) return Tf32::Off;
  if (n == QLatin1String("emulate")) return Tf32::Emulate;
  return std::nullopt;
}

QString tf32Name(Tf32 mode) {
  switch (mode) {
    case Tf32::Default: return QStringLiteral("default");
    case Tf32::On: return QStringLiteral("on");
    case Tf32::Off: return QStringLiteral("off");
    case Tf32::Emulate: return QStringLiteral("emulate");
  }
  return {};
}

bool tf32Rounds(const QString& op) {
  static const QStringList kOps{QStringLiteral("aten::conv1d"),
                                QStringLiteral("aten::conv2d"),
                                QStringLiteral("aten::conv3d"),
                                QStringLiteral("aten::convolution"),
                                QStringLiteral("aten::_convolution"),
                                QStringLiteral("aten::conv_transpose1d"),
                                QStringLiteral("aten::conv_transpose2d"),
                                QStringLiteral("aten::conv_transpose3d"),
                                QStringLiteral("aten::linear"),
                                QStringLiteral("aten::matmul"),
                                QStringLiteral("aten::mm"),
                                QStringLiteral("aten::bmm"),
                                QStringLiteral("aten::addmm"),
                                QStringLiteral("aten::baddbmm"),
                                QStringLiteral("aten::addbmm"),
                                QStringLiteral("aten::einsum")};
  return kOps.contains(op);
}

at::Tensor roundToTf32(const at::Tensor& t) {
  if (!t.defined() || t.scalar_type() != c10::kFloat) return t;
  // Round half away from zero on the 13 bits TF32 drops (cvt.rna.tf32.f32); inf and NaN keep
  // their exponent, so they stay what they are.
  const at::Tensor c = t.contiguous();
  const at::Tensor rounded =
      at::bitwise_and(c.view(c10::kInt) + 0x1000, static_cast<int64_t>(~0x1FFF)).view(c10::kFloat);
  return at::where(c.isfinite(), rounded, c);
}

std::optional<c10::ScalarType> precisionDtype(const QString& name, QString* error) {
  const auto dtype = model::dtypeFromName(name);
  if (!dtype || !c10::isFloatingType(*dtype)) {
    if (error)
      *error = QStringLiteral("'%1' is not a floating dtype (use float16, bfloat16, float32 or float64)").arg(name);
    return std::nullopt;
  }
  return dtype;
}

c10::IValue castFloating(const c10::IValue& v, std::optional<c10::ScalarType> dtype, c10::Device device, bool fresh,
                         bool leaveFloat64) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) return v;
    const bool floating = t.is_floating_point() && !(leaveFloat64 && t.scalar_type() == c10::kDouble);
    const auto target = floating && dtype ? *dtype : t.scalar_type();
    if (t.device() == device && t.scalar_type() == target) return fresh ? c10::IValue(t.clone()) : v;
    return t.to(device, target);
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList())
      out.push_back(castFloating(t, dtype, device, fresh, leaveFloat64).toTensor());
    return out;
  }
  if (v.isList()) {
    auto list = v.toList();
    c10::impl::GenericList out(list.elementType());
    for (const c10::IValue& e : list) out.push_back(castFloating(e, dtype, device, fresh, leaveFloat64));
    return out;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const auto& e : v.toTupleRef().elements())
      items.push_back(castFloating(e, dtype, device, fresh, leaveFloat64));
    return c10::ivalue::Tuple::create(std::move(items));
  }
  return v;
}

std::optional<c10::ScalarType> firstLowerPrecisionDtype(const std::vector<c10::IValue>& values) {
  const auto lower = [](const at::Tensor& t) {
    return t.defined() && (t.scalar_type() == c10::kHalf || t.scalar_type() == c10::kBFloat16);
  };
  for (const auto& v : values) {
    if (v.isTensor() && lower(v.toTensor())) return v.toTensor().scalar_type();
    if (v.isTensorList())
      for (const at::Tensor& t : v.toTensorList())
        if (lower(t)) return t.scalar_type();
  }
  return std::nullopt;
}

bool autocastKeepsFloat32(const QString& op) {
  // torch.autocast's float32 list (CPU and CUDA), by operator name without overload.
  static const QStringList kOps{QStringLiteral("softmax"),
                                QStringLiteral("_softmax"),
                                QStringLiteral("log_softmax"),
                                QStringLiteral("_log_softmax"),
                                QStringLiteral("layer_norm"),
                                QStringLiteral("native_layer_norm"),
                                QStringLiteral("group_norm"),
                                QStringLiteral("native_group_norm"),
                                QStringLiteral("batch_norm"),
                                QStringLiteral("_native_batch_norm_legit_no_training"),
                                QStringLiteral("instance_norm"),
                                QStringLiteral("rms_norm"),
                                QStringLiteral("norm"),
                                QStringLiteral("linalg_vector_norm"),
                                QStringLiteral("sum"),
                                QStringLiteral("mean"),
                                QStringLiteral("prod"),
                                QStringLiteral("cumsum"),
                                QStringLiteral("cumprod"),
                                QStringLiteral("var"),
                                QStringLiteral("std"),
                                QStringLiteral("var_mean"),
                                QStringLiteral("logsumexp"),
                                QStringLiteral("exp"),
                                QStringLiteral("log"),
                                QStringLiteral("log1p"),
                                QStringLiteral("pow"),
                                QStringLiteral("rsqrt"),
                                QStringLiteral("reciprocal"),
                                QStringLiteral("cosine_similarity"),
                                QStringLiteral("cross_entropy_loss"),
                                QStringLiteral("nll_loss"),
                                QStringLiteral("mse_loss"),
                                QStringLiteral("binary_cross_entropy_with_logits")};
  const QString name = op.section(QStringLiteral("::"), 1).section(QLatin1Char('.'), 0, 0);
  return op.startsWith(QLatin1String("aten::")) && kOps.contains(name);
}

bool autocastLowersPrecision(const QString& op) {
  static const QStringList kOps{
      QStringLiteral("conv1d"), QStringLiteral("conv2d"), QStringLiteral("conv3d"), QStringLiteral("_convolution"),
      QStringLiteral("convolution"), QStringLiteral("conv_transpose1d"), QStringLiteral("conv_transpose2d"),
      QStringLiteral("conv_transpose3d"), QStringLiteral("linear"), QStringLiteral("matmul"), QStringLiteral("mm"),
      QStringLiteral("bmm"), QStringLiteral("addmm"), QStringLiteral("addbmm"), QStringLiteral("baddbmm"),
      QStringLiteral("addmv"), QStringLiteral("prelu"), QStringLiteral("scaled_dot_product_attention"),
      QStringLiteral("_scaled_dot_product_flash_attention_for_cpu"), QStringLiteral("einsum")};
  const QString name = op.section(QStringLiteral("::"), 1).section(QLatin1Char('.'), 0, 0);
  return op.startsWith(QLatin1String("aten::")) && kOps.contains(name);
}

NodePrecision nodePrecision(const Precision& precision, const QString& op) {
  if (!precision.autocast) return NodePrecision::AsReceived;
  if (autocastKeepsFloat32(op)) return NodePrecision::Float32;
  if (precision.dtype && autocastLowersPrecision(op)) return NodePrecision::RunDtype;
  return NodePrecision::AsReceived;
}

double unitRoundoff(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return std::ldexp(1.0, -11);
    case c10::kBFloat16: return std::ldexp(1.0, -8);
    case c10::kDouble: return std::ldexp(1.0, -53);
    default: return std::ldexp(1.0, -24);
  }
}

double largestFinite(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return 65504.0;
    case c10::kBFloat16: return double(std::numeric_limits<c10::BFloat16>::max());
    case c10::kDouble: return std::numeric_limits<double>::max();
    default: return double(std::numeric_limits<float>::max());
  }
}

double subnormalSpacing(c10::ScalarType dtype) {
  switch (dtype) {
    case c10::kHalf: return std::ldexp(1.0, -24);
    case c10::kBFloat16: return std::ldexp(1.0, -133);
    case c10::kDouble: return std::ldexp(1.0, -1074);
    default: return std::ldexp(1.0, -149);
  }
}

}  // namespace graft::core::run
