#include "core/edit/edit_targets.h"
#include "core/model/folding.h"

#include "core/edit/edit_context.h"
#include "core/model/revision.h"
#include "core/model/value_format.h"

#include <torch/csrc/jit/ir/constants.h>

namespace graft::core::edit {

using model::isFolded;

QVector<InputSlot> edgeInputs(const model::Revision& revision, model::NodeId id) {
  QVector<InputSlot> out;
  const auto* n = revision.nodeOf(id);
  if (!n) return out;
  const auto* schema = matchingSchema(n);
  for (size_t i = 0; i < n->inputs().size(); ++i) {
    const auto* v = n->input(i);
    if (isFolded(v->node())) continue;
    const QString name = schema && i < schema->arguments().size()
                             ? QString::fromStdString(schema->arguments()[i].name())
                             : QString::fromStdString(v->debugName());
    out.push_back({static_cast<int>(i), name, QString::fromStdString(v->type()->annotation_str())});
  }
  return out;
}

QVector<ConstantSlot> constantArguments(const model::Revision& revision, model::NodeId id) {
  QVector<ConstantSlot> out;
  const auto* n = revision.nodeOf(id);
  const auto* schema = n ? matchingSchema(n) : nullptr;
  if (!schema) return out;
  for (size_t i = 0; i < n->inputs().size() && i < schema->arguments().size(); ++i) {
    const auto* v = n->input(i);
    if (v->node()->kind() != c10::prim::Constant && v->node()->kind() != c10::prim::ListConstruct) continue;
    if (v->type()->kind() == c10::TypeKind::TensorType) continue;
    const auto iv = torch::jit::toIValue(v);
    if (!iv) continue;
    QString text = iv->isNone() ? QStringLiteral("None") : model::formatIValue(*iv);
    out.push_back({QString::fromStdString(schema->arguments()[i].name()), text,
                   QString::fromStdString(schema->arguments()[i].type()->annotation_str())});
  }
  return out;
}

}  // namespace graft::core::edit
