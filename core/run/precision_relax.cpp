#include "core/run/precision_relax.h"

#include <ATen/ATen.h>

#include <set>

namespace graft::core::run {

namespace {

bool lowerOrSingle(c10::ScalarType t) { return t == c10::kHalf || t == c10::kBFloat16 || t == c10::kFloat; }

// The dtypes a run at `runDtype` unifies: float16, bfloat16 and float32 (float64 left out:
// autocast leaves it be), and float64 too in the float64 reference run, which must cast what the
// lower-precision run casts (Bloom's alibi stays float32 beside float64 weights).
bool unifiable(c10::ScalarType t, c10::ScalarType runDtype) {
  return lowerOrSingle(t) || (runDtype == c10::kDouble && t == c10::kDouble);
}

// The floating dtypes among the tensors of `stack` that a run at `runDtype` unifies.
std::set<c10::ScalarType> floatingDtypes(const torch::jit::Stack& stack, c10::ScalarType runDtype) {
  std::set<c10::ScalarType> out;
  const auto add = [&](const at::Tensor& t) {
    if (t.defined() && unifiable(t.scalar_type(), runDtype)) out.insert(t.scalar_type());
  };
  for (const auto& v : stack) {
    if (v.isTensor()) add(v.toTensor());
    else if (v.isTensorList())
      for (const at::Tensor& t : v.toTensorList()) add(t);
    else if (v.isList())
      for (const c10::IValue& e : v.toListRef())
        if (e.isTensor()) add(e.toTensor());
  }
  return out;
}

QString names(const std::set<c10::ScalarType>& dtypes) {
  QStringList out;
  for (auto t : dtypes) out << dtypeName(t);
  return out.join(QStringLiteral(" and "));
}

// Every float16/bfloat16/float32 tensor of `v` at `dtype` (float64 and integers as they are).
c10::IValue castLower(const c10::IValue& v, c10::ScalarType dtype, c10::Device device) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined() || !lowerOrSingle(t.scalar_type()) || t.scalar_type() == dtype) return v;
    return t.to(device, dtype);
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> out;
    for (const at::Tensor& t : v.toTensorList()) out.push_back(castLower(t, dtype, device).toTensor());
    return out;
  }
  if (v.isList()) {
    auto list = v.toList();
    c10::impl::GenericList out(list.elementType());
    for (const c10::IValue& e : list) out.push_back(castLower(e, dtype, device));
    return out;
  }
  return v;
}

}  // namespace

QString relaxForPrecision(const QString& op, const Precision& precision, torch::jit::Stack& stack, c10::Device device,
                          torch::jit::Stack* retry) {
  if (!precision.dtype) return {};
  if (op == QLatin1String("aten::_assert_tensor_metadata")) {
    // _assert_tensor_metadata(Tensor a, SymInt[]? size, SymInt[]? stride, ScalarType? dtype, *, Device? device, Layout?
    // layout)
    if (stack.size() < 4 || !stack[0].isTensor() || !stack[3].isInt()) return {};
    const at::Tensor& a = stack[0].toTensor();
    const auto asserted = static_cast<c10::ScalarType>(stack[3].toInt());
    if (!a.defined() || !a.is_floating_point() || !c10::isFloatingType(asserted) || a.scalar_type() == asserted)
      return {};
    stack[3] = c10::IValue();
    return QStringLiteral("%1 assert relaxed for a %2 tensor").arg(dtypeName(asserted), dtypeName(a.scalar_type()));
  }
  const auto dtypes = floatingDtypes(stack, *precision.dtype);
  if (dtypes.size() < 2) return {};
  if (autocastLowersPrecision(op)) {
    const QString given = names(dtypes);
    for (auto& v : stack) v = castLower(v, *precision.dtype, device);
    return QStringLiteral("inputs of %1 cast to %2, as autocast runs it").arg(given, dtypeName(*precision.dtype));
  }
  if (retry) *retry = stack;
  return {};
}

QString unifyFloatingInputs(const QString& op, const Precision& precision, torch::jit::Stack& stack,
                            c10::Device device) {
  if (!precision.dtype) return {};
  const auto dtypes = floatingDtypes(stack, *precision.dtype);
  if (dtypes.size() < 2) return {};
  // Autocast's float32 ops at float32, unless the run is finer still (the float64 reference).
  const c10::ScalarType target =
      autocastKeepsFloat32(op) && *precision.dtype != c10::kDouble ? c10::kFloat : *precision.dtype;
  const QString given = names(dtypes);
  for (auto& v : stack) v = castLower(v, target, device);
  return QStringLiteral("failed on inputs of %1: run again with them at %2").arg(given, dtypeName(target));
}

QString relaxedSummary(const QString& side, const QStringList& relaxed) {
  QStringList lines = relaxed;
  lines.removeDuplicates();
  if (lines.isEmpty()) return {};
  int asserts = 0, followed = 0;
  for (const QString& l : lines) {
    asserts += l.contains(QLatin1String(" assert relaxed")) ? 1 : 0;
    followed += l.contains(QLatin1String("recorded float32 follows")) || l.contains(QLatin1String("float32's extreme"));
  }
  const int casts = int(lines.size()) - asserts - followed;
  QStringList parts;
  if (followed)
    parts << QStringLiteral("%1 node%2 had the dtype or extreme the capture recorded at float32 follow the run's "
                            "dtype, as model.half() would")
                 .arg(followed)
                 .arg(followed == 1 ? "" : "s");
  QStringList autocastParts;
  if (asserts) autocastParts << QStringLiteral("%1 dtype assert%2 relaxed").arg(asserts).arg(asserts == 1 ? "" : "s");
  if (casts) autocastParts << QStringLiteral("%1 op%2 given mixed dtypes cast").arg(casts).arg(casts == 1 ? "" : "s");
  if (!autocastParts.isEmpty())
    parts << QStringLiteral("%1, the way autocast would").arg(autocastParts.join(QStringLiteral(", ")));
  QString text = QStringLiteral("%1: %2").arg(side, parts.join(QStringLiteral("; ")));
  // Stock model.half() raises on an op given mixed dtypes: the answer is then not about that model.
  if (casts)
    text += QStringLiteral(". Stock model.half() stops with a dtype error on %1, so this side is not the model under "
                           "model.half() but the nearest run that completes")
                .arg(casts == 1 ? QStringLiteral("that op") : QStringLiteral("those ops"));
  return text;
}

}  // namespace graft::core::run
