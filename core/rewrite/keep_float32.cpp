#include "core/rewrite/keep_float32.h"

#include "core/rewrite/program_dtype.h"
#include "core/run/precision.h"

#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QJsonArray>

#include <algorithm>
#include <map>

namespace graft::core::rewrite {

using torch::jit::Node;
using torch::jit::Value;

ValueKey valueKey(const model::Revision& revision, const Value* v) {
  if (v->node()->kind() == c10::prim::Param) return {model::kNoNode, int(v->offset())};
  return {revision.idOf(v->node()), int(v->offset())};
}

model::RevisionPtr keepInFloat32(const model::Revision& base, const std::unordered_set<model::NodeId>& nodes,
                                 const FloatingValues& floatingValues, model::NodeIdSource& ids, QString* error,
                                 const MixedPrecision& precision) {
  std::optional<c10::ScalarType> programDtype = precision.programDtype;
  const auto isFloating = [&](const Value* v) { return floatingValues.count(valueKey(base, v)) > 0; };
  auto copy = base.cloneGraph();
  // The copy's values stand for the base's: the predicate is asked about the base value.
  std::unordered_map<const Value*, const Value*> baseValue;
  std::unordered_set<Node*> kept;
  for (const auto& [node, id] : copy.ids) {
    const Node* original = base.nodeOf(id);
    if (!original) continue;
    for (size_t k = 0; k < node->outputs().size() && k < original->outputs().size(); ++k)
      baseValue[node->outputs()[k]] = original->outputs()[k];
    if (nodes.count(id)) kept.insert(const_cast<Node*>(node));
  }
  const auto baseGraph = base.graph();
  for (size_t i = 0; i < copy.graph->inputs().size() && i < baseGraph->inputs().size(); ++i)
    baseValue[copy.graph->inputs()[i]] = baseGraph->inputs()[i];
  const auto floating = [&](const Value* v) {
    if (v->node()->kind() == c10::prim::Constant) {
      auto c = torch::jit::toIValue(v);
      return c && c->isTensor() && c->toTensor().is_floating_point();
    }
    auto it = baseValue.find(v);
    return it != baseValue.end() && isFloating(it->second);
  };
  if (kept.empty()) {
    if (error) *error = QStringLiteral("none of the nodes to keep in float32 is in this revision");
    return nullptr;
  }
  // Weights that are module attributes stay for `.half()` to convert (keep_float32.h).
  if (programDtype && !base.frozen()) programDtype.reset();
  if (programDtype)
    for (const auto& [cast, input] : convertProgramTo(copy, base, floating, *programDtype))
      baseValue[cast] = baseValue[input];

  // The value each kept node's outputs are cast back to: a floating value that entered its region.
  std::unordered_map<const Node*, Value*> entry;
  std::map<std::pair<Value*, torch::jit::Block*>, Value*> raised;  // one cast per value and block
  int casts = 0;
  std::function<void(torch::jit::Block*)> visit = [&](torch::jit::Block* b) {
    for (Node* n : b->nodes()) {
      if (kept.count(n)) {
        for (size_t i = 0; i < n->inputs().size(); ++i) {
          Value* v = n->input(i);
          if (!floating(v)) continue;
          if (kept.count(v->node())) {
            if (!entry.count(n) && entry.count(v->node())) entry[n] = entry[v->node()];
            continue;
          }
          if (!entry.count(n)) entry[n] = v;
          auto key = std::make_pair(v, b);
          auto it = raised.find(key);
          if (it == raised.end()) {
            torch::jit::WithInsertPoint guard(n);
            Value* up = copy.graph->insert(c10::aten::to, {v, precision.keptAt, false, false, c10::IValue()});
            it = raised.emplace(key, up).first;
            ++casts;
          }
          n->replaceInput(i, it->second);
        }
        auto e = entry.find(n);
        if (e != entry.end()) {
          for (Value* y : n->outputs()) {
            if (!floating(y)) continue;
            std::vector<torch::jit::Use> outside;
            for (const auto& use : y->uses())
              if (!kept.count(use.user)) outside.push_back(use);
            if (outside.empty()) continue;
            Node* after = n->next();
            torch::jit::WithInsertPoint guard(after);
            Value* down = copy.graph->insert(c10::aten::type_as, {y, e->second});
            ++casts;
            for (const auto& use : outside) use.user->replaceInput(use.offset, down);
          }
        }
      }
      for (torch::jit::Block* sub : n->blocks()) visit(sub);
    }
  };
  visit(copy.graph->block());
  if (casts == 0) {
    if (error) *error = QStringLiteral("the nodes to keep in float32 read and write no floating tensors");
    return nullptr;
  }
  QString name = QStringLiteral("keep %1 node%2 in %3")
                     .arg(kept.size())
                     .arg(kept.size() == 1 ? "" : "s")
                     .arg(precision.keptAt == c10::kDouble ? QStringLiteral("float64 (beyond autocast's reach)")
                                                           : QStringLiteral("float32"));
  if (programDtype) name = QStringLiteral("%1, %2").arg(run::dtypeName(*programDtype), name);
  return model::Revision::derived(base, copy.graph, copy.ids, name, ids);
}

QJsonObject keepFloat32ToJson(const std::unordered_set<model::NodeId>& nodes, const FloatingValues& floating,
                              const MixedPrecision& precision) {
  std::vector<model::NodeId> sorted(nodes.begin(), nodes.end());
  std::sort(sorted.begin(), sorted.end());
  QJsonArray n, f;
  for (auto id : sorted) n.append(QString::number(id));
  for (const auto& k : floating)
    f.append(k.node == model::kNoNode ? QStringLiteral("in:%1").arg(k.index)
                                      : QStringLiteral("%1:%2").arg(k.node).arg(k.index));
  QJsonObject json{{"nodes", n}, {"floating", f}};
  if (precision.programDtype) json.insert(QStringLiteral("dtype"), run::dtypeName(*precision.programDtype));
  if (precision.keptAt != c10::kFloat) json.insert(QStringLiteral("kept_at"), run::dtypeName(precision.keptAt));
  return json;
}

bool keepFloat32FromJson(const QJsonObject& json, std::unordered_set<model::NodeId>& nodes, FloatingValues& floating,
                         MixedPrecision& precision, QString* error) {
  precision = {};
  if (json.contains(QLatin1String("dtype"))) {
    precision.programDtype = run::precisionDtype(json.value(QLatin1String("dtype")).toString(), error);
    if (!precision.programDtype) return false;
  }
  if (json.contains(QLatin1String("kept_at"))) {
    const auto keptAt = run::precisionDtype(json.value(QLatin1String("kept_at")).toString(), error);
    if (!keptAt) return false;
    precision.keptAt = *keptAt;
  }
  for (const auto& v : json.value(QLatin1String("nodes")).toArray()) {
    bool ok = false;
    const model::NodeId id = v.toString().toULongLong(&ok);
    if (!ok) {
      if (error) *error = QStringLiteral("bad node id '%1'").arg(v.toString());
      return false;
    }
    nodes.insert(id);
  }
  for (const auto& v : json.value(QLatin1String("floating")).toArray()) {
    const QStringList parts = v.toString().split(QLatin1Char(':'));
    bool okNode = true, okIndex = false;
    const model::NodeId node =
        parts.value(0) == QLatin1String("in") ? model::kNoNode : parts.value(0).toULongLong(&okNode);
    const int index = parts.value(1).toInt(&okIndex);
    if (parts.size() != 2 || !okNode || !okIndex) {
      if (error) *error = QStringLiteral("bad value '%1'").arg(v.toString());
      return false;
    }
    floating.insert({node, index});
  }
  if (nodes.empty()) {
    if (error) *error = QStringLiteral("no nodes to keep in float32");
    return false;
  }
  return true;
}

}  // namespace graft::core::rewrite
