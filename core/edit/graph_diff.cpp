#include "core/edit/graph_diff.h"
#include "core/model/constant_value.h"
#include "core/model/document.h"
#include "core/model/folding.h"

#include "core/edit/edit_context.h"
#include "core/model/graph_walk.h"
#include "core/model/module_path.h"
#include "core/model/pair_by_order.h"
#include "core/model/value_format.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QJsonArray>
#include <QtCore/QSet>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace graft::core::edit {

namespace {

using torch::jit::Node;

// A node the diff lists (model::isOpOfItsOwn). Constants, lists and tuples (and their unpacking)
// and size computations are attributes of the op that reads them: compared as part of its
// inputs, never counted on their own.
bool isOpNode(const Node* n) { return model::isOpOfItsOwn(n); }

std::vector<Node*> opNodes(const model::Revision& r) {
  std::vector<Node*> out;
  model::forEachNode(*r.graph(), [&](Node* n) {
    if (isOpNode(n)) out.push_back(n);
  });
  return out;
}

DiffNode describe(const model::Revision& r, const Node* n) {
  const model::NodeId id = r.idOf(n);
  return {id, QString::fromStdString(n->kind().toQualString()), r.modulePathOf(id)};
}

// The value of a folded input (constant, parameter, constant list); nullopt for a computed one.
std::optional<c10::IValue> constantOf(const torch::jit::Value* v) {
  if (!model::isFolded(v->node())) return std::nullopt;
  return model::constantValue(v);
}

// Arguments that choose a kernel, not a result (a trace records the backend's settings in them,
// torch.export its defaults): never a difference.
bool isKernelFlag(const QString& argument) {
  static const QSet<QString> flags{QStringLiteral("benchmark"), QStringLiteral("deterministic"),
                                   QStringLiteral("cudnn_enabled"), QStringLiteral("allow_tf32")};
  return flags.contains(argument);
}

// The op under its export name where a trace spells the same computation differently
// (docs/ARCHITECTURE.md, "Naming across formats"): a non-transposed aten::_convolution is
// aten::conv1d/2d/3d by its weight's rank.
QString canonicalOp(const Node* n) {
  const QString kind = QString::fromStdString(n->kind().toQualString());
  if (n->kind() == c10::aten::_convolution && n->inputs().size() >= 7) {
    const auto transposed = torch::jit::constant_as<bool>(n->input(6));
    const auto weight = torch::jit::toIValue(n->input(1));
    if (transposed && !*transposed && weight && weight->isTensor()) {
      const auto rank = weight->toTensor().dim();
      if (rank >= 3 && rank <= 5) return QStringLiteral("aten::conv%1d").arg(rank - 2);
    }
  }
  return kind;
}

// Argument names by schema, looked up once per schema (the node caches its operator).
class ArgumentNames {
 public:
  const std::vector<QString>& of(const Node* n) {
    const c10::FunctionSchema* schema = n->maybeSchema();
    if (!schema) schema = matchingSchema(n);
    auto& names = cache_[schema];
    if (names.size() < n->inputs().size())
      for (size_t i = names.size(); i < n->inputs().size(); ++i)
        names.push_back(schema && i < schema->arguments().size() ? QString::fromStdString(schema->arguments()[i].name())
                                                                 : QStringLiteral("input %1").arg(i));
    return names;
  }

 private:
  std::unordered_map<const c10::FunctionSchema*, std::vector<QString>> cache_;
};

// A paired node's arguments side by side: by position for one op, by schema name when the two
// spell one computation differently (arguments only one side has are its own flags).
struct ArgumentPair {
  QString name;
  int a = -1, b = -1;
};
std::vector<ArgumentPair> pairArguments(const Node* na, const Node* nb, ArgumentNames& names) {
  std::vector<ArgumentPair> out;
  const auto& namesB = names.of(nb);
  if (na->kind() == nb->kind()) {
    const size_t count = std::max(na->inputs().size(), nb->inputs().size());
    for (size_t i = 0; i < count; ++i)
      out.push_back({i < namesB.size() ? namesB[i] : QStringLiteral("input %1").arg(i),
                     i < na->inputs().size() ? int(i) : -1, i < nb->inputs().size() ? int(i) : -1});
    return out;
  }
  const auto& namesA = names.of(na);
  for (size_t i = 0; i < nb->inputs().size(); ++i) {
    const auto it = std::find(namesA.begin(), namesA.begin() + na->inputs().size(), namesB[i]);
    out.push_back({namesB[i], it == namesA.begin() + na->inputs().size() ? -1 : int(it - namesA.begin()), int(i)});
  }
  return out;
}

// Whether a value B's op reads is the value A's op read: the same constant, the same graph or
// block input, the output of the partner of A's producer (or of the node it was folded into), or
// an attribute (a list, tuple, unpacked item, size computation) built the same way from such
// values.
class SameValue {
 public:
  SameValue(const std::unordered_map<const Node*, const Node*>& partnerOfA,
            const std::unordered_map<const Node*, const Node*>& foldedInto)
      : partnerOfA_(partnerOfA), foldedInto_(foldedInto) {}

  bool operator()(const torch::jit::Value* va, const torch::jit::Value* vb) {
    if (va->offset() != vb->offset()) return false;
    const Node* pa = va->node();
    const Node* pb = vb->node();
    const auto ca = constantOf(va), cb = constantOf(vb);
    if (ca || cb) return ca && cb && model::sameConstantValue(*ca, *cb);
    const bool paramA = pa->kind() == c10::prim::Param, paramB = pb->kind() == c10::prim::Param;
    if (paramA || paramB) {
      if (!(paramA && paramB)) return false;
      const Node* ownerA = pa->owningBlock()->owningNode();
      const Node* ownerB = pb->owningBlock()->owningNode();
      if (!ownerA || !ownerB) return !ownerA && !ownerB;
      return partnered(ownerA, ownerB);
    }
    if (isOpNode(pa) || isOpNode(pb)) return isOpNode(pa) && isOpNode(pb) && partnered(pa, pb);
    const auto key = std::make_pair(pa, pb);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    memo_[key] = false;  // a cycle cannot occur in a graph; this also bounds the walk
    bool same = pa->kind() == pb->kind() && pa->inputs().size() == pb->inputs().size() &&
                pa->outputs().size() == pb->outputs().size();
    // A parameter of an unfrozen model: the same chain of attribute names from `self`.
    if (same && pa->kind() == c10::prim::GetAttr) same = pa->s(c10::attr::name) == pb->s(c10::attr::name);
    for (size_t i = 0; same && i < pa->inputs().size(); ++i) same = (*this)(pa->input(i), pb->input(i));
    return memo_[key] = same;
  }

 private:
  bool partnered(const Node* a, const Node* b) const {
    if (auto it = partnerOfA_.find(a); it != partnerOfA_.end() && it->second == b) return true;
    auto it = foldedInto_.find(a);
    return it != foldedInto_.end() && it->second == b;
  }

  struct PairHash {
    size_t operator()(const std::pair<const Node*, const Node*>& p) const {
      return std::hash<const void*>()(p.first) * 31 + std::hash<const void*>()(p.second);
    }
  };
  const std::unordered_map<const Node*, const Node*>& partnerOfA_;
  const std::unordered_map<const Node*, const Node*>& foldedInto_;
  std::unordered_map<std::pair<const Node*, const Node*>, bool, PairHash> memo_;
};

}  // namespace

GraphDiff diffGraphs(const model::Revision& a, const model::Revision& b, DiffMatching matching,
                     const model::Lineage* la, const model::Lineage* lb) {
  const auto nodesA = opNodes(a), nodesB = opNodes(b);
  std::vector<int> pairA(nodesA.size(), -1), pairB(nodesB.size(), -1);
  // Roots each B node derives from (by provenance only), for pairing and for "folded into".
  std::vector<std::vector<model::NodeId>> rootsB(nodesB.size());
  std::unordered_map<model::NodeId, std::vector<int>> aByRoot;
  std::unordered_map<const Node*, std::vector<model::NodeId>> rootsOfA;
  std::unordered_map<model::NodeId, int> firstBOfRoot;
  if (matching == DiffMatching::ByProvenance) {
    const model::Lineage& lineageA = la ? *la : a.lineage();
    const model::Lineage& lineageB = lb ? *lb : b.lineage();
    for (size_t ia = 0; ia < nodesA.size(); ++ia) {
      if (la && nodesA[ia]->kind().is_prim()) continue;
      rootsOfA[nodesA[ia]] = lineageA.originOf(a.idOf(nodesA[ia])).from;
      for (model::NodeId r : rootsOfA[nodesA[ia]]) aByRoot[r].push_back(int(ia));
    }
    for (size_t ib = 0; ib < nodesB.size(); ++ib) {
      // Roots name op nodes only (a saved record lists those): a prim node of another document
      // (an if, a loop) pairs by kind and order below.
      if (la && nodesB[ib]->kind().is_prim()) continue;
      rootsB[ib] = lineageB.originOf(b.idOf(nodesB[ib])).from;
      for (model::NodeId r : rootsB[ib]) firstBOfRoot.try_emplace(r, int(ib));
      for (model::NodeId r : rootsB[ib]) {
        auto it = aByRoot.find(r);
        if (it == aByRoot.end() || pairB[ib] >= 0) continue;
        for (int ia : it->second)
          if (pairA[ia] < 0 && nodesA[ia]->kind() == nodesB[ib]->kind()) {
            pairA[ia] = int(ib);
            pairB[ib] = ia;
            break;
          }
      }
    }
    if (la) {
      auto primKeys = [](const std::vector<Node*>& nodes) {
        std::vector<QString> keys;
        for (size_t i = 0; i < nodes.size(); ++i)
          keys.push_back(nodes[i]->kind().is_prim() ? QString::fromStdString(nodes[i]->kind().toQualString())
                                                    : QStringLiteral("#%1").arg(i));
        return keys;
      };
      auto keysA = primKeys(nodesA), keysB = primKeys(nodesB);
      for (auto& k : keysB)
        if (k.startsWith(QLatin1Char('#'))) k.prepend(QLatin1Char('b'));  // ops never pair here
      model::pairByOrder(keysA, keysB, pairA, pairB);
    }
  } else {
    // Module path, op and order; then op and order alone for what is left, so a file saved
    // without module call stacks (a rewritten model saved as TorchScript) still lines up.
    auto keys = [](const model::Revision& r, const std::vector<Node*>& nodes, std::vector<QString>& withPath,
                   std::vector<QString>& opOnly) {
      for (const Node* n : nodes) {
        opOnly.push_back(canonicalOp(n));
        // The module itself, not its call: order tells a module's calls apart on both sides.
        withPath.push_back(r.placeOf(r.idOf(n)).path() + QLatin1Char('|') + opOnly.back());
      }
    };
    std::vector<QString> pathA, opA, pathB, opB;
    keys(a, nodesA, pathA, opA);
    keys(b, nodesB, pathB, opB);
    model::pairByOrder(pathA, pathB, pairA, pairB);
    model::pairByOrder(opA, opB, pairA, pairB);
  }
  std::unordered_map<const Node*, const Node*> partnerOfA, partnerOfB;
  for (size_t ia = 0; ia < nodesA.size(); ++ia)
    if (pairA[ia] >= 0) {
      partnerOfA[nodesA[ia]] = nodesB[pairA[ia]];
      partnerOfB[nodesB[pairA[ia]]] = nodesA[ia];
    }

  GraphDiff diff;
  for (size_t ia = 0; ia < nodesA.size(); ++ia)
    if (pairA[ia] >= 0) diff.pairs.append({a.idOf(nodesA[ia]), b.idOf(nodesB[pairA[ia]])});
  for (const Node* nb : nodesB)
    if (!partnerOfB.count(nb)) diff.added << describe(b, nb);
  for (const Node* na : nodesA) {
    if (partnerOfA.count(na)) continue;
    RemovedNode r;
    static_cast<DiffNode&>(r) = describe(a, na);
    // Folded into: by provenance, the first B node derived from it; by structure, the matched
    // node that produced its first computed input (conv absorbing batch_norm).
    if (matching == DiffMatching::ByProvenance) {
      int into = -1;
      for (model::NodeId root : rootsOfA[na])
        if (auto it = firstBOfRoot.find(root); it != firstBOfRoot.end() && (into < 0 || it->second < into))
          into = it->second;
      if (into >= 0) r.foldedInto = describe(b, nodesB[size_t(into)]);
      diff.removed << r;
      continue;
    }
    for (const auto* in : na->inputs()) {
      if (!isOpNode(in->node())) continue;
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
  ArgumentNames argumentNames;
  SameValue sameValue(partnerOfA, foldedInto);
  for (const Node* na : nodesA) {
    auto it = partnerOfA.find(na);
    if (it == partnerOfA.end()) continue;
    const Node* nb = it->second;
    QStringList what;
    const bool sameOp = na->kind() == nb->kind();
    for (const auto& arg : pairArguments(na, nb, argumentNames)) {
      if (isKernelFlag(arg.name)) continue;
      if (arg.a < 0 || arg.b < 0) {
        // An argument only one spelling of the op has (a trace's `transposed`, `output_padding`).
        if (sameOp) what << QStringLiteral("inputs");
        else if (arg.b >= 0) what << QStringLiteral("input ") + arg.name;
        continue;
      }
      const auto* va = na->input(arg.a);
      const auto* vb = nb->input(arg.b);
      if (sameValue(va, vb)) continue;
      const bool constants = constantOf(va) && constantOf(vb);
      what << (constants ? QStringLiteral("constant ") : QStringLiteral("input ")) + arg.name;
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

namespace {
QString named(const DiffNode& d) {
  return d.modulePath.isEmpty() ? d.op : QStringLiteral("%1 %2").arg(d.modulePath, d.op);
}
}  // namespace

QString GraphDiff::summaryText() const {
  if (equal()) return QStringLiteral("no difference");
  int folded = 0;
  for (const auto& d : removed) folded += d.foldedInto ? 1 : 0;
  QStringList parts;
  if (!added.isEmpty()) parts << QStringLiteral("%1 added").arg(added.size());
  if (!removed.isEmpty())
    parts << (folded ? QStringLiteral("%1 removed (%2 folded)").arg(removed.size()).arg(folded)
                     : QStringLiteral("%1 removed").arg(removed.size()));
  if (!changed.isEmpty()) parts << QStringLiteral("%1 changed").arg(changed.size());
  return parts.join(QStringLiteral(", "));
}

QStringList GraphDiff::lines() const {
  QStringList out;
  for (const auto& d : removed)
    out << (d.foldedInto ? QStringLiteral("− %1, folded into %2").arg(named(d), named(*d.foldedInto))
                         : QStringLiteral("− %1").arg(named(d)));
  for (const auto& d : added) out << QStringLiteral("+ %1").arg(named(d));
  for (const auto& d : changed) out << QStringLiteral("~ %1: %2").arg(named(d), d.what.join(QStringLiteral(", ")));
  return out;
}

GraphDiff diffDocuments(const model::Document& a, const model::Revision& revA, const model::Document& b,
                        const model::Revision& revB) {
  const auto shared = model::sharedRootLineages(a, revA, b, revB);
  if (!shared) return diffGraphs(revA, revB, DiffMatching::ByStructure);
  return diffGraphs(revA, revB, DiffMatching::ByProvenance, &shared->a, &shared->b);
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
