#include "core/run/dtype_follow.h"

#include "core/run/precision.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QRegularExpression>

#include <limits>

namespace graft::core::run {

namespace {
bool isScalarTypeArgument(const c10::Argument& a) {
  const c10::TypePtr& t = a.real_type();
  if (t->kind() == c10::TypeKind::ScalarTypeType) return true;
  const auto optional = t->cast<c10::OptionalType>();
  return optional && optional->getElementType()->kind() == c10::TypeKind::ScalarTypeType;
}
}  // namespace

bool namesFloat32(const QString& sourceText) {
  static const QRegularExpression re(QStringLiteral(R"(\.float\(\)|\bfloat32\b|torch\.float\b|\bfp32\b)"));
  return re.match(sourceText).hasMatch();
}

bool takesDtypeFromATensor(const QString& sourceText) {
  static const QRegularExpression re(QStringLiteral(R"(\.to\(|\bdtype\b|\.type_as\(|\.new_\w+\(|_like\()"));
  return re.match(sourceText).hasMatch();
}

std::vector<int> followedDtypeInputs(const torch::jit::Node* node, const model::Revision& revision) {
  std::vector<int> out;
  const auto* schema = node->maybeSchema();
  if (!schema) return out;
  const model::NodeId id = revision.idOf(node);
  // Only the capture's own nodes: a cast an edit or rule added (keep-in-float32's) means what it says.
  if (id == model::kNoNode || !revision.lineage().sameAs(id)) return out;
  const model::NodePlace& place = revision.placeOf(id);
  if (!takesDtypeFromATensor(place.sourceText) || namesFloat32(place.sourceText)) return out;
  const auto& args = schema->arguments();
  for (size_t i = 0; i < args.size() && i < node->inputs().size(); ++i)
    if (isScalarTypeArgument(args[i])) out.push_back(int(i));
  return out;
}

bool narrowerThanFloat32(c10::ScalarType dtype) { return dtype == c10::kHalf || dtype == c10::kBFloat16; }

double extremeAt(double value, c10::ScalarType dtype) {
  constexpr double kFloat32Max = std::numeric_limits<float>::max();
  if (!narrowerThanFloat32(dtype) || std::abs(value) != kFloat32Max) return value;
  return value > 0 ? largestFinite(dtype) : -largestFinite(dtype);
}

at::Tensor castWithExtremes(const at::Tensor& t, c10::ScalarType dtype) {
  at::Tensor cast = t.to(dtype);
  if (!narrowerThanFloat32(dtype) || t.scalar_type() != c10::kFloat || t.numel() == 0) return cast;
  const at::Tensor extreme = t.abs() == std::numeric_limits<float>::max();
  if (!extreme.any().item<bool>()) return cast;
  return at::where(extreme, at::sign(t).to(dtype) * largestFinite(dtype), cast);
}

}  // namespace graft::core::run
