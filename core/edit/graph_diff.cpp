#include "core/edit/graph_diff.h"
#include "core/model/folding.h"

#include "core/edit/edit_context.h"
#include "core/model/graph_walk.h"
#include "core/model/module_path.h"
#include "core/model/pair_by_order.h"
#include "core/model/value_format.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QJsonArray>

#include <unordered_map>

namespace graft::core::edit {

namespace {

using torch::jit::Node;

bool isOpNode(const Node* n) { return !model::isFolded(n); }

std::vector<Node*> opNodes(const model::Revision& r) {
  std::vector<Node*> out;
  model::forEachNode(*r.graph(), [&](Node* n) {
    if (isOpNode(n)) out.push_back(n);
  });
  return out;
}

DiffNode describe(const model::Revision& r, const Node* n) {
  return {r.idOf(n), QString::fromStdString(n->kind().toQualString()), model::modulePath(n)};
}

// The value of a folded input (constant, parameter, constant list); nullopt for a computed one.
std::optional<c10::IValue> constantOf(const torch::jit::Value* v) {
  if (isOpNode(v->node()) || v->node()->kind() == c10::prim::Param) return std::nullopt;
  return torch::jit::toIValue(v);
}

bool sameConstant(const c10::IValue& a, const c10::IValue& b) {
  if (a.isTensor() && b.isTensor()) {
    const auto& ta = a.toTensor();
    const auto& tb = b.toTensor();
    if (ta.defined() != tb.defined()) return false;
    if (!ta.defined()) return true;
    return ta.sizes() == tb.sizes() && ta.scalar_type() == tb.scalar_type() && at::equal(ta, tb);
  }
  return model::formatIValue(a) == model::formatIValue(b) && a.tagKind() == b.tagKind();
}


}  // namespace

GraphDiff diffGraphs(const model::Revision& a, const model::Revision& b, DiffMatching matching) {
  const auto nodesA = opNodes(a), nodesB = opNodes(b);
  std::vector<int> pairA(nodesA.size(), -1), pairB(nodesB.size(), -1);
  if (matching == DiffMatching::ById) {
    std::unordered_map<model::NodeId, int> indexA;
    for (size_t ia = 0; ia < nodesA.size(); ++ia) indexA[a.idOf(nodesA[ia])] = int(ia);
    for (size_t ib = 0; ib < nodesB.size(); ++ib)
      if (auto it = indexA.find(b.idOf(nodesB[ib])); it != indexA.end()) {
        pairA[it->second] = int(ib);
        pairB[ib] = it->second;
      }
  } else {
    auto keys = [](const model::Revision& r, const std::vector<Node*>& nodes, bool withPath) {
      std::vector<QString> out;
      for (const Node* n : nodes) {
        const auto d = describe(r, n);
        out.push_back(withPath ? d.modulePath + QLatin1Char('|') + d.op : d.op);
      }
      return out;
    };
    // Module path, op and order; then op and order alone for what is left, so a file saved
    // without module call stacks (a rewritten model saved as TorchScript) still lines up.
    model::pairByOrder(keys(a, nodesA, true), keys(b, nodesB, true), pairA, pairB);
    model::pairByOrder(keys(a, nodesA, false), keys(b, nodesB, false), pairA, pairB);
  }
  std::unordered_map<const Node*, const Node*> partnerOfA, partnerOfB;
  for (size_t ia = 0; ia < nodesA.size(); ++ia)
    if (pairA[ia] >= 0) {
      partnerOfA[nodesA[ia]] = nodesB[pairA[ia]];
      partnerOfB[nodesB[pairA[ia]]] = nodesA[ia];
    }

  GraphDiff diff;
  for (const Node* nb : nodesB)
    if (!partnerOfB.count(nb)) diff.added << describe(b, nb);
  for (const Node* na : nodesA) {
    if (partnerOfA.count(na)) continue;
    RemovedNode r;
    static_cast<DiffNode&>(r) = describe(a, na);
    // Folded into: the matched node that produced its first computed input, when that node
    // changed (conv absorbing batch_norm, linear absorbing a following op).
    for (const auto* in : na->inputs()) {
      if (!isOpNode(in->node()) || in->node()->kind() == c10::prim::Param) continue;
      if (auto it = partnerOfA.find(in->node()); it != partnerOfA.end()) r.foldedInto = describe(b, it->second);
      break;
    }
    diff.removed << r;
  }
  // A consumer of a folded node now reads the node it was folded into: that is the fold, not a
  // change of the consumer.
  std::unordered_map<const Node*, const Node*> foldedInto;
  for (const auto& r : diff.removed)
    if (r.foldedInto) foldedInto[a.nodeOf(r.node)] = b.nodeOf(r.foldedInto->node);
  for (const Node* na : nodesA) {
    auto it = partnerOfA.find(na);
    if (it == partnerOfA.end()) continue;
    const Node* nb = it->second;
    QStringList what;
    if (na->inputs().size() != nb->inputs().size()) what << QStringLiteral("inputs");
    for (size_t i = 0; i < na->inputs().size() && i < nb->inputs().size(); ++i) {
      const auto ca = constantOf(na->input(i)), cb = constantOf(nb->input(i));
      if (ca && cb) {
        if (!sameConstant(*ca, *cb)) what << QStringLiteral("constant ") + model::argumentName(nb, i);
        continue;
      }
      if (ca.has_value() != cb.has_value()) {
        what << QStringLiteral("input ") + model::argumentName(nb, i);
        continue;
      }
      const Node* pa = na->input(i)->node();
      const Node* pb = nb->input(i)->node();
      const bool bothGraphInputs = pa->kind() == c10::prim::Param && pb->kind() == c10::prim::Param;
      const bool samePartner = (partnerOfA.count(pa) && partnerOfA.at(pa) == pb) ||
                               (foldedInto.count(pa) && foldedInto.at(pa) == pb);
      if ((!bothGraphInputs && !samePartner) || na->input(i)->offset() != nb->input(i)->offset())
        what << QStringLiteral("input ") + model::argumentName(nb, i);
    }
    if (!what.isEmpty()) {
      ChangedNode c;
      static_cast<DiffNode&>(c) = describe(b, nb);
      c.nodeA = a.idOf(na);
      what.removeDuplicates();
      c.what = what;
      diff.changed << c;
    }
  }
  return diff;
}

QJsonObject GraphDiff::toJson() const {
  auto node = [](const DiffNode& d) {
    return QJsonObject{{"node", qint64(d.node)}, {"op", d.op}, {"module_path", d.modulePath}};
  };
  QJsonArray a, r, c;
  for (const auto& d : added) a.append(node(d));
  for (const auto& d : removed) {
    auto o = node(d);
    o.insert(QStringLiteral("folded_into"), d.foldedInto ? QJsonValue(node(*d.foldedInto)) : QJsonValue());
    r.append(o);
  }
  for (const auto& d : changed) {
    auto o = node(d);
    o.insert(QStringLiteral("node_a"), qint64(d.nodeA));
    o.insert(QStringLiteral("what"), QJsonArray::fromStringList(d.what));
    c.append(o);
  }
  int folded = 0;
  for (const auto& d : removed) folded += d.foldedInto ? 1 : 0;
  return {{"added", a},
          {"removed", r},
          {"changed", c},
          {"summary", QJsonObject{{"added", added.size()}, {"removed", removed.size()}, {"folded", folded},
                                  {"changed", changed.size()}, {"equal", equal()}}}};
}

}  // namespace graft::core::edit
