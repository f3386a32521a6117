#include "core/edit/revision_diff.h"
#include "core/model/folding.h"

#include "core/edit/edit_context.h"
#include "core/model/revision.h"
#include "core/model/value_format.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QJsonArray>
#include <QtCore/QSet>

namespace graft::core::edit {

namespace {

// The folded constant feeding `v` rendered as text, or a null string when `v` is computed.
QString constantText(const torch::jit::Value* v) {
  if (!model::isFolded(v->node())) return {};
  auto iv = torch::jit::toIValue(v);
  if (!iv) return {};
  return model::formatIValue(*iv);
}


QJsonArray ids(const QVector<model::NodeId>& v) {
  QJsonArray a;
  for (auto id : v) a.append(static_cast<qint64>(id));
  return a;
}

}  // namespace

RevisionDiff diff(const model::Revision& before, const model::Revision& after) {
  RevisionDiff d;
  const auto beforeIds = before.nodeIds();
  const auto afterIds = after.nodeIds();
  const QSet<model::NodeId> inBefore(beforeIds.begin(), beforeIds.end());
  const QSet<model::NodeId> inAfter(afterIds.begin(), afterIds.end());
  for (auto id : afterIds)
    if (!inBefore.contains(id)) d.added.push_back(id);
  for (auto id : beforeIds)
    if (!inAfter.contains(id)) d.removed.push_back(id);
  for (auto id : afterIds) {
    if (!inBefore.contains(id)) continue;
    const auto* a = before.nodeOf(id);
    const auto* b = after.nodeOf(id);
    if (a->kind() == c10::prim::Constant || a->kind() == c10::prim::ListConstruct) continue;
    bool rewired = a->inputs().size() != b->inputs().size();
    for (size_t i = 0; i < a->inputs().size() && i < b->inputs().size(); ++i) {
      const QString ca = constantText(a->input(i));
      const QString cb = constantText(b->input(i));
      if (!ca.isNull() && !cb.isNull()) {
        if (ca != cb) d.constants.push_back({id, model::argumentName(b, i), ca, cb});
        continue;
      }
      if (before.idOf(a->input(i)->node()) != after.idOf(b->input(i)->node()) ||
          a->input(i)->offset() != b->input(i)->offset())
        rewired = true;
    }
    if (rewired) d.rewired.push_back(id);
  }
  return d;
}

QJsonObject RevisionDiff::toJson() const {
  QJsonArray cs;
  for (const auto& c : constants)
    cs.append(QJsonObject{
        {"node", static_cast<qint64>(c.node)}, {"argument", c.argument}, {"before", c.before}, {"after", c.after}});
  return {{"added", ids(added)}, {"removed", ids(removed)}, {"rewired", ids(rewired)}, {"constants", cs}};
}

}  // namespace graft::core::edit
