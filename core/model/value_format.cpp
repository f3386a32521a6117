#include "core/model/value_format.h"

#include "core/model/shape_symbols.h"

#include <torch/script.h>

#include <algorithm>
#include <optional>
#include <sstream>

namespace graft::core::model {

QString dtypeName(int scalarType) {
  switch (static_cast<c10::ScalarType>(scalarType)) {
    case c10::ScalarType::Float: return QStringLiteral("float32");
    case c10::ScalarType::Double: return QStringLiteral("float64");
    case c10::ScalarType::Half: return QStringLiteral("float16");
    case c10::ScalarType::BFloat16: return QStringLiteral("bfloat16");
    case c10::ScalarType::Long: return QStringLiteral("int64");
    case c10::ScalarType::Int: return QStringLiteral("int32");
    case c10::ScalarType::Short: return QStringLiteral("int16");
    case c10::ScalarType::Char: return QStringLiteral("int8");
    case c10::ScalarType::Byte: return QStringLiteral("uint8");
    case c10::ScalarType::Bool: return QStringLiteral("bool");
    default: return QString::fromStdString(c10::toString(static_cast<c10::ScalarType>(scalarType)));
  }
}

namespace {

QString joinSizes(c10::IntArrayRef sizes) {
  QStringList parts;
  for (auto s : sizes) parts << QString::number(s);
  return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

}  // namespace

QString formatTensorType(const at::TensorBase& tensor) {
  return dtypeName(static_cast<int>(tensor.scalar_type())) + QLatin1Char(' ') + joinSizes(tensor.sizes());
}

QString formatType(const torch::jit::Value* value) {
  const auto& type = value->type();
  if (auto tensor = type->cast<c10::TensorType>()) {
    QString out = tensor->scalarType() ? dtypeName(static_cast<int>(*tensor->scalarType()))
                                       : QStringLiteral("Tensor");
    if (auto sizes = tensor->sizes().concrete_sizes()) {
      out += QLatin1Char(' ') + joinSizes(*sizes);
    } else if (auto dims = tensor->symbolic_sizes().sizes()) {
      QStringList parts;  // a program's dynamic dimensions, by name: "[s77, 8]"
      for (const auto& d : *dims) parts << symbolName(d);
      out += QStringLiteral(" [%1]").arg(parts.join(QStringLiteral(", ")));
    }
    return out;
  }
  return QString::fromStdString(type->annotation_str());
}

QString formatIValue(const c10::IValue& value) {
  if (value.isTensor()) {
    const auto& t = value.toTensor();
    if (!t.defined()) return QStringLiteral("None");
    QString out = QStringLiteral("Tensor ") + dtypeName(static_cast<int>(t.scalar_type())) +
                  QLatin1Char(' ') + joinSizes(t.sizes());
    if (t.numel() == 1) {
      std::ostringstream os;
      os << t.item();
      out += QStringLiteral(" = ") + QString::fromStdString(os.str());
    }
    return out;
  }
  if (value.isNone()) return QStringLiteral("None");
  if (value.isBool()) return value.toBool() ? QStringLiteral("True") : QStringLiteral("False");
  if (value.isString()) return QLatin1Char('"') + QString::fromStdString(value.toStringRef()) + QLatin1Char('"');
  if (value.isList() || value.isTuple()) {
    const auto elements = value.isList() ? value.toListRef().vec() : value.toTupleRef().elements().vec();
    QStringList parts;
    const size_t shown = std::min<size_t>(elements.size(), 8);
    for (size_t i = 0; i < shown; ++i) parts << formatIValue(elements[i]);
    if (elements.size() > shown) parts << QStringLiteral("… (%1 items)").arg(elements.size());
    const QString body = parts.join(QStringLiteral(", "));
    return value.isList() ? QLatin1Char('[') + body + QLatin1Char(']')
                          : QLatin1Char('(') + body + QLatin1Char(')');
  }
  if (value.isDevice()) return QString::fromStdString(value.toDevice().str());
  if (value.isObject()) return QString::fromStdString(value.type()->annotation_str());
  std::ostringstream os;
  os << value;
  return QString::fromStdString(os.str());
}

namespace {

QString number(double v) { return QString::number(v, 'g', 6); }

// "a" when every value is a, else "min … max (N channels)".
template <class T>
QString range(const at::Tensor& values) {
  const auto flat = values.to(c10::CppTypeToScalarType<T>::value).contiguous();
  const T* p = flat.template data_ptr<T>();
  const auto n = flat.numel();
  if (n == 0) return {};
  T lo = p[0], hi = p[0];
  for (int64_t i = 1; i < n; ++i) {
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  if (lo == hi) return number(double(lo));
  return QStringLiteral("%1 … %2 (%3 channels)").arg(number(double(lo)), number(double(hi))).arg(n);
}

// A quantized op's packed weight: the custom-class object's own `unpack` gives (weight, bias).
std::optional<at::Tensor> unpackedWeight(const c10::IValue& value) {
  if (!value.isObject()) return std::nullopt;
  const auto object = value.toObject();
  auto* unpack = object->type()->findMethod("unpack");
  if (!unpack) return std::nullopt;
  torch::jit::Stack stack{value};
  unpack->run(stack);
  if (stack.empty() || !stack.back().isTuple()) return std::nullopt;
  const auto& items = stack.back().toTupleRef().elements();
  if (items.empty() || !items[0].isTensor()) return std::nullopt;
  return items[0].toTensor();
}

}  // namespace

QVector<QPair<QString, QString>> quantizationFacts(const c10::IValue& value) {
  QVector<QPair<QString, QString>> facts;
  try {
    std::optional<at::Tensor> tensor;
    if (value.isTensor()) tensor = value.toTensor();
    else tensor = unpackedWeight(value);
    if (!tensor || !tensor->defined() || !tensor->is_quantized()) return {};
    const auto& t = *tensor;
    const auto scheme = t.qscheme();
    facts.append({QStringLiteral("qscheme"), QString::fromStdString(c10::toString(scheme))});
    if (scheme == at::kPerTensorAffine || scheme == at::kPerTensorSymmetric) {
      facts.append({QStringLiteral("scale"), number(t.q_scale())});
      facts.append({QStringLiteral("zero_point"), QString::number(t.q_zero_point())});
    } else {
      facts.append({QStringLiteral("axis"), QString::number(t.q_per_channel_axis())});
      facts.append({QStringLiteral("scale"), range<double>(t.q_per_channel_scales())});
      facts.append({QStringLiteral("zero_point"), range<int64_t>(t.q_per_channel_zero_points())});
    }
    if (!value.isTensor())  // the weight was unpacked: say what it is
      facts.prepend({QStringLiteral("weight"), formatIValue(t)});
  } catch (...) {
    return {};  // a description must never break the view
  }
  return facts;
}

}  // namespace graft::core::model
