#include "core/edit/edit_context.h"

#include "core/model/graph_walk.h"

#include <torch/csrc/jit/runtime/operator.h>

namespace graft::core::edit {

EditContext::EditContext(const model::Revision& base) : copy_(base.cloneGraph()) {
  for (const auto& [node, id] : copy_.ids) byId_[id] = const_cast<torch::jit::Node*>(node);
}

torch::jit::Node* EditContext::node(model::NodeId id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : it->second;
}

model::NodeId EditContext::idOf(const torch::jit::Node* node) const {
  auto it = copy_.ids.find(node);
  return it == copy_.ids.end() ? model::kNoNode : it->second;
}

QString EditContext::label(const torch::jit::Node* node) const {
  QString out = QString::fromStdString(node->kind().toQualString());
  if (node->outputs().size() > 0) out += QStringLiteral(" → %") + QString::fromStdString(node->output(0)->debugName());
  const model::NodeId id = idOf(node);
  return id == model::kNoNode ? QStringLiteral("new node (%1)").arg(out)
                              : QStringLiteral("node %1 (%2)").arg(id).arg(out);
}

void EditContext::touchUsers(torch::jit::Value* value) {
  for (const auto& use : value->uses()) touched_.insert(use.user);
}

void EditContext::destroy(torch::jit::Node* node) {
  // Nested nodes go too; none of them may keep an id.
  for (auto* block : node->blocks())
    model::forEachNode(block, [&](torch::jit::Node* n) {
      touched_.erase(n);
      auto it = copy_.ids.find(n);
      if (it != copy_.ids.end()) { byId_.erase(it->second); copy_.ids.erase(it); }
    });
  touched_.erase(node);
  auto it = copy_.ids.find(node);
  if (it != copy_.ids.end()) { byId_.erase(it->second); copy_.ids.erase(it); }
  node->destroy();
}

void EditContext::removeIfDeadConstant(torch::jit::Node* node) {
  const auto kind = node->kind();
  if (kind != c10::prim::Constant && kind != c10::prim::ListConstruct) return;
  for (auto* out : node->outputs())
    if (out->hasUses()) return;
  std::vector<torch::jit::Node*> feeders;
  for (auto* in : node->inputs()) feeders.push_back(in->node());
  destroy(node);
  for (auto* f : feeders)
    if (f->kind() == c10::prim::Constant || f->kind() == c10::prim::ListConstruct) removeIfDeadConstant(f);
}

const c10::FunctionSchema* matchingSchema(const torch::jit::Node* node) {
  for (const auto& op : torch::jit::getAllOperatorsFor(node->kind()))
    if (node->matches(op->schema())) return &op->schema();
  return nullptr;
}

namespace {

// Why `node` matches none of its operator's schemas, from the schema with its input count.
QString schemaMismatch(const torch::jit::Node* node) {
  const auto ops = torch::jit::getAllOperatorsFor(node->kind());
  if (ops.empty())
    return QStringLiteral("no operator %1 is registered").arg(QString::fromStdString(node->kind().toQualString()));
  for (const auto& op : ops) {
    const auto& args = op->schema().arguments();
    if (args.size() != node->inputs().size() || op->schema().is_vararg()) continue;
    for (size_t i = 0; i < args.size(); ++i) {
      const auto& actual = node->inputs()[i]->type();
      if (!actual->isSubtypeOf(*args[i].type()))
        return QStringLiteral("argument '%1' expects %2 but gets %3 (schema %4)")
            .arg(QString::fromStdString(args[i].name()), QString::fromStdString(args[i].type()->annotation_str()),
                 QString::fromStdString(actual->annotation_str()), QString::fromStdString(c10::toString(op->schema())));
    }
  }
  return QStringLiteral("its %1 inputs match no schema of %2, e.g. %3")
      .arg(node->inputs().size())
      .arg(QString::fromStdString(node->kind().toQualString()),
           QString::fromStdString(c10::toString(ops.front()->schema())));
}

}  // namespace

std::optional<Refusal> EditContext::validate(model::NodeId fallback) {
  auto refuse = [&](const torch::jit::Node* n, const QString& why) {
    const model::NodeId id = n ? idOf(n) : model::kNoNode;
    return Refusal{id != model::kNoNode ? id : fallback, n ? label(n) + QStringLiteral(": ") + why : why};
  };
  // Every value defined before it is used (an edit that closes a cycle ends up here too).
  std::unordered_set<const torch::jit::Value*> defined;
  std::optional<Refusal> order, schema;  // schema: the first touched node, in graph order, no schema takes
  std::function<void(torch::jit::Block*)> walk = [&](torch::jit::Block* block) {
    for (auto* v : block->inputs()) defined.insert(v);
    for (auto* n : block->nodes()) {
      if (!schema && touched_.count(n) && n->kind().is_aten() && !matchingSchema(n))
        schema = refuse(n, schemaMismatch(n));
      for (auto* in : n->inputs())
        if (!order && !defined.count(in))
          order = refuse(n, QStringLiteral("uses %%1 before it is defined (the edit would make a cycle or "
                                           "read a later value)").arg(QString::fromStdString(in->debugName())));
      for (auto* sub : n->blocks()) walk(sub);
      for (auto* out : n->outputs()) defined.insert(out);
    }
    for (auto* out : block->outputs())
      if (!order && !defined.count(out))
        order = refuse(
            nullptr,
            QStringLiteral("the graph returns %%1 before it is defined").arg(QString::fromStdString(out->debugName())));
  };
  walk(copy_.graph->block());
  if (order) return order;
  if (schema) return schema;
  try {
    copy_.graph->lint();
  } catch (const c10::Error& e) {
    return refuse(nullptr,
                  QStringLiteral("the edited graph is inconsistent: %1")
                      .arg(QString::fromStdString(e.what_without_backtrace()).section(QLatin1Char('\n'), 0, 0)));
  } catch (const std::exception& e) {
    return refuse(nullptr, QStringLiteral("the edited graph is inconsistent: %1").arg(QString::fromUtf8(e.what())));
  }
  return std::nullopt;
}

}  // namespace graft::core::edit
