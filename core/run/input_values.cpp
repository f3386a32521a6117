#include "core/run/input_values.h"

#include "core/model/dtype_names.h"
#include "core/model/value_format.h"
#include "core/model/revision.h"

#include <torch/script.h>

namespace graft::core::run {

QString describe(const c10::IValue& v) {
  if (v.isTensor()) {
    const auto& t = v.toTensor();
    if (!t.defined()) return QStringLiteral("None");
    QStringList dims;
    for (auto d : t.sizes()) dims << QString::number(d);
    return QStringLiteral("Tensor %1 [%2]").arg(model::dtypeName(static_cast<int>(t.scalar_type())),
                                                 dims.join(QStringLiteral(", ")));
  }
  if (v.isTuple() || v.isList()) {
    QStringList parts;
    const auto items = v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    for (const auto& e : items) parts << describe(e);
    return (v.isTuple() ? QStringLiteral("(%1)") : QStringLiteral("[%1]")).arg(parts.join(QStringLiteral(", ")));
  }
  if (v.isNone()) return QStringLiteral("None");
  if (v.isInt()) return QStringLiteral("int %1").arg(v.toInt());
  if (v.isDouble()) return QStringLiteral("float %1").arg(v.toDouble());
  if (v.isBool()) return QStringLiteral("bool %1").arg(v.toBool() ? QStringLiteral("true") : QStringLiteral("false"));
  return QString::fromStdString(v.tagKind());
}

c10::IValue toDevice(const c10::IValue& v, c10::Device device) {
  if (v.isTensor()) return v.toTensor().to(device);
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const auto& e : v.toTupleRef().elements()) items.push_back(toDevice(e, device));
    return c10::ivalue::Tuple::create(std::move(items));
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) out.push_back(t.to(device));
    return out;
  }
  return v;
}

std::vector<c10::IValue> withDefaults(const model::Revision& revision, std::vector<c10::IValue> inputs) {
  const auto method = revision.module().find_method("forward");
  if (!method) return inputs;
  const auto& args = method->function().getSchema().arguments();  // args[0] is self
  if (inputs.size() + 1 >= args.size()) return inputs;
  for (size_t i = inputs.size() + 1; i < args.size(); ++i)
    if (!args[i].default_value()) return inputs;
  for (size_t i = inputs.size() + 1; i < args.size(); ++i) inputs.push_back(*args[i].default_value());
  return inputs;
}

}  // namespace graft::core::run
