#include "core/rewrite/pattern_draft.h"

#include <torch/csrc/jit/ir/ir.h>

#include <unordered_set>

namespace graft::core::rewrite {

using torch::jit::Node;
using torch::jit::Value;

namespace {

// A constant as a condition's literal (see literalEquals in pattern_rewrite); empty for tensors
// and anything else a condition cannot state.
QString literalOf(Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return {};
  auto iv = torch::jit::toIValue(v);
  if (!iv) return {};
  if (iv->isNone()) return QStringLiteral("None");
  if (iv->isBool()) return iv->toBool() ? QStringLiteral("true") : QStringLiteral("false");
  if (iv->isInt()) return QString::number(iv->toInt());
  if (iv->isDouble()) return QString::number(iv->toDouble(), 'g', 17);
  if (iv->isIntList()) {
    QStringList items;
    for (auto i : iv->toIntVector()) items << QString::number(i);
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
  }
  if (iv->isString()) return QLatin1Char('"') + QString::fromStdString(iv->toStringRef()) + QLatin1Char('"');
  return {};
}

// IR names must not clash with the ones libtorch makes up (%0, %1, ...) for unnamed values.
std::string nameFor(Value* v) { return v->hasDebugName() ? v->debugName() : "v" + std::to_string(v->unique()); }

}  // namespace

PatternDraft patternFromNodes(const model::Revision& revision, const QVector<model::NodeId>& ids) {
  PatternDraft draft;
  std::unordered_set<const Node*> chosen;
  for (auto id : ids) {
    Node* n = revision.nodeOf(id);
    if (!n) {
      draft.error = QStringLiteral("node %1 is not in this revision").arg(id);
      return draft;
    }
    if (n->kind().is_prim()) continue;  // constants and lists come along with their users
    if (!n->blocks().empty()) {
      draft.error = QStringLiteral("%1 has nested blocks, which a pattern cannot hold")
                        .arg(QString::fromStdString(n->kind().toQualString()));
      return draft;
    }
    chosen.insert(n);
  }
  if (chosen.empty()) {
    draft.error = QStringLiteral("select at least one op node (Ctrl+click adds to the selection)");
    return draft;
  }
  // Graph order keeps every definition before its use.
  std::vector<Node*> order;
  for (Node* n : revision.graph()->nodes())
    if (chosen.count(n)) order.push_back(n);
  if (order.size() != chosen.size()) {
    draft.error = QStringLiteral("select nodes of the top-level graph only");
    return draft;
  }

  torch::jit::Graph pattern;
  std::unordered_map<Value*, Value*> mapped;
  std::function<Value*(Value*)> valueFor = [&](Value* v) -> Value* {
    if (auto it = mapped.find(v); it != mapped.end()) return it->second;
    Node* producer = v->node();
    Value* made = nullptr;
    if (producer->kind() == c10::prim::ListConstruct && !chosen.count(producer)) {
      // A list of settings ([1, 1] strides) is part of the op: copy it, its items as inputs.
      made = pattern.appendNode(pattern.createClone(producer, valueFor))->output();
    } else {
      made = pattern.addInput(nameFor(v));
      made->setType(v->type());
      if (const QString lit = literalOf(v); !lit.isEmpty())
        draft.conditions << QStringLiteral("%%1 == %2").arg(QString::fromStdString(made->debugName()), lit);
    }
    mapped[v] = made;
    return made;
  };
  Value* result = nullptr;
  Node* copy = nullptr;
  for (Node* n : order) {
    copy = pattern.appendNode(pattern.createClone(n, valueFor));
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      copy->output(i)->copyMetadata(n->output(i));
      mapped[n->output(i)] = copy->output(i);
      bool usedOutside = false;
      for (const auto& use : n->output(i)->uses()) usedOutside = usedOutside || !chosen.count(use.user);
      if (!usedOutside) continue;
      if (result) {
        draft.error = QStringLiteral("the selection has more than one result used outside it (%%1 and %%2); "
                                     "a pattern returns one value")
                          .arg(QString::fromStdString(result->debugName()), QString::fromStdString(n->output(i)->debugName()));
        return draft;
      }
      result = copy->output(i);
    }
  }
  if (!result) result = copy->output(0);
  pattern.registerOutput(result);
  draft.pattern = QString::fromStdString(pattern.toString());
  return draft;
}

}  // namespace graft::core::rewrite
