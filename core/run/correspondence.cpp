#include "core/run/correspondence.h"

#include "core/model/graph_walk.h"

#include <torch/csrc/jit/ir/ir.h>

#include <numeric>
#include <unordered_set>

namespace graft::core::run {

namespace {

using model::NodeId;
using torch::jit::Node;
using torch::jit::Value;

bool isOp(const Node* n) { return !n->kind().is_prim(); }

// Nodes that only repackage values: a use through them is a use by their own users.
bool isPassThrough(const Node* n) {
  const auto k = n->kind();
  return k == c10::prim::ListConstruct || k == c10::prim::TupleConstruct || k == c10::prim::ListUnpack ||
         k == c10::prim::TupleUnpack || k == c10::prim::unchecked_cast || k == c10::prim::DictConstruct;
}

bool leaves(const Node* user, const std::unordered_set<const Node*>& inside, int depth = 0) {
  if (inside.count(user)) return false;
  if (!isPassThrough(user) || depth > 8) return true;
  for (const Value* out : user->outputs())
    for (const auto& use : out->uses())
      if (leaves(use.user, inside, depth + 1)) return true;
  return false;
}

struct UnionFind {
  std::vector<int> parent;
  int add() { parent.push_back(int(parent.size())); return parent.back(); }
  int find(int x) { while (parent[x] != x) x = parent[x] = parent[parent[x]]; return x; }
  void join(int x, int y) { parent[find(x)] = find(y); }
};

struct Side {
  const model::Revision& rev;
  const model::Lineage& lineage;
  std::vector<Node*> ops;
  std::unordered_map<NodeId, int> key;  // op node id → union-find element
};

QString opsText(const model::Revision& rev, const std::vector<NodeId>& ids) {
  QStringList ops;
  for (NodeId id : ids)
    if (const Node* n = rev.nodeOf(id)) ops << QString::fromStdString(n->kind().toQualString());
  return ops.join(QStringLiteral(" + "));
}

// The outputs of `nodes` that leave the set, in graph order.
std::vector<std::pair<Node*, int>> exitsOf(const model::Revision& rev, const std::vector<NodeId>& nodes) {
  std::unordered_set<const Node*> inside;
  for (NodeId id : nodes) inside.insert(rev.nodeOf(id));
  std::vector<std::pair<Node*, int>> out;
  for (NodeId id : nodes) {
    Node* n = rev.nodeOf(id);
    for (size_t k = 0; k < n->outputs().size(); ++k) {
      bool leaving = false;
      for (const auto& use : n->outputs()[k]->uses()) leaving = leaving || leaves(use.user, inside);
      if (leaving) out.emplace_back(n, int(k));
    }
  }
  return out;
}

}  // namespace

QString ChangeGroup::label() const {
  const QString from = opsA.isEmpty() ? QStringLiteral("(nothing)") : opsA;
  const QString to = opsB.isEmpty() ? QStringLiteral("(removed)") : opsB;
  return QStringLiteral("change %1: %2 → %3").arg(number).arg(from, to);
}

Correspondence correspond(const model::Revision& a, const model::Lineage& la, const model::Revision& b,
                          const model::Lineage& lb) {
  Correspondence c;
  Side sa{a, la, {}, {}}, sb{b, lb, {}, {}};
  for (Side* s : {&sa, &sb})
    model::forEachNode(*s->rev.graph(), [&](Node* n) {
      if (isOp(n)) s->ops.push_back(n);
    });

  // A root node is clean when exactly one unchanged copy on each side names it and nothing else does.
  std::unordered_map<NodeId, int> mentions;
  std::unordered_map<NodeId, Node*> copyA, copyB;
  for (Side* s : {&sa, &sb})
    for (Node* n : s->ops) {
      const NodeId id = s->rev.idOf(n);
      for (NodeId r : s->lineage.originOf(id).from) ++mentions[r];
      if (auto r = s->lineage.sameAs(id)) (s == &sa ? copyA : copyB)[*r] = n;
    }
  for (const auto& [root, nodeA] : copyA) {
    auto it = copyB.find(root);
    if (it == copyB.end() || mentions[root] != 2) continue;
    const NodeId ia = a.idOf(nodeA), ib = b.idOf(it->second);
    if (nodeA->kind() != it->second->kind()) continue;
    c.bOfA[ia] = ib;
    c.aOfB[ib] = ia;
  }

  // Everything else: joined through shared roots; a brand-new node joins its consumers.
  UnionFind uf;
  std::unordered_map<NodeId, int> rootKey;
  auto keyOfRoot = [&](NodeId r) {
    auto [it, inserted] = rootKey.try_emplace(r, 0);
    if (inserted) it->second = uf.add();
    return it->second;
  };
  for (Side* s : {&sa, &sb}) {
    const auto& paired = s == &sa ? c.bOfA : c.aOfB;
    for (Node* n : s->ops) {
      const NodeId id = s->rev.idOf(n);
      if (paired.count(id)) continue;
      const int k = uf.add();
      s->key[id] = k;
      for (NodeId r : s->lineage.originOf(id).from) uf.join(k, keyOfRoot(r));
    }
    for (auto it = s->ops.rbegin(); it != s->ops.rend(); ++it) {
      const NodeId id = s->rev.idOf(*it);
      if (!s->key.count(id) || !s->lineage.originOf(id).from.empty()) continue;
      std::vector<const Node*> users;
      for (const Value* out : (*it)->outputs())
        for (const auto& use : out->uses()) users.push_back(use.user);
      for (size_t i = 0; i < users.size(); ++i) {
        const Node* u = users[i];
        if (isPassThrough(u)) {
          for (const Value* out : u->outputs())
            for (const auto& use : out->uses()) users.push_back(use.user);
          continue;
        }
        if (auto k = s->key.find(s->rev.idOf(u)); isOp(u) && k != s->key.end()) uf.join(s->key[id], k->second);
      }
    }
  }

  std::unordered_map<int, int> groupOfSet;
  auto place = [&](Side& s, bool isA) {
    for (Node* n : s.ops) {
      const NodeId id = s.rev.idOf(n);
      auto k = s.key.find(id);
      if (k == s.key.end()) continue;
      const int set = uf.find(k->second);
      auto [it, inserted] = groupOfSet.try_emplace(set, int(c.groups.size()));
      if (inserted) c.groups.emplace_back();
      (isA ? c.groups[it->second].a : c.groups[it->second].b).push_back(id);
      (isA ? c.groupOfA : c.groupOfB)[id] = it->second;
    }
  };
  place(sb, false);
  place(sa, true);
  for (size_t i = 0; i < c.groups.size(); ++i) {
    ChangeGroup& g = c.groups[i];
    g.number = int(i) + 1;
    g.opsA = opsText(a, g.a);
    g.opsB = opsText(b, g.b);
  }

  // The A value standing where B's `user` reads input `offset`: through unchanged copies, the
  // graph's return, a branch's return, and repackaging nodes.
  std::function<Value*(const Node*, size_t, int)> inA = [&](const Node* user, size_t offset, int depth) -> Value* {
    if (depth > 8) return nullptr;
    const Node* userA = nullptr;
    if (user->kind() == c10::prim::Return) {
      const Node* owner = user->owningBlock()->owningNode();
      if (!owner) userA = a.graph()->return_node();
      else if (auto it = c.aOfB.find(b.idOf(owner)); it != c.aOfB.end()) {
        const Node* ownerA = a.nodeOf(it->second);
        for (size_t i = 0; i < owner->blocks().size() && i < ownerA->blocks().size(); ++i)
          if (owner->blocks()[i] == user->owningBlock()) userA = ownerA->blocks()[i]->return_node();
      }
    } else if (auto it = c.aOfB.find(b.idOf(user)); it != c.aOfB.end()) {
      userA = a.nodeOf(it->second);
    } else if (isPassThrough(user) && user->outputs().size() == 1 && !user->output()->uses().empty()) {
      const auto& use = user->output()->uses().front();
      Value* packA = inA(use.user, use.offset, depth + 1);
      if (packA && packA->node()->kind() == user->kind()) userA = packA->node();
    }
    if (!userA || offset >= userA->inputs().size()) return nullptr;
    return const_cast<Value*>(userA->inputs()[offset]);
  };

  for (ChangeGroup& g : c.groups) {
    auto exitsA = exitsOf(a, g.a);
    auto exitsB = exitsOf(b, g.b);
    std::vector<bool> usedA(exitsA.size(), false), usedB(exitsB.size(), false);
    for (size_t j = 0; j < exitsB.size(); ++j) {
      const auto& [nb, kb] = exitsB[j];
      for (const auto& use : nb->outputs()[kb]->uses()) {
        Value* va = inA(use.user, use.offset, 0);
        if (!va) continue;
        for (size_t i = 0; i < exitsA.size(); ++i)
          if (!usedA[i] && exitsA[i].first == va->node() && size_t(exitsA[i].second) == va->offset()) {
            g.exits.push_back({a.idOf(exitsA[i].first), b.idOf(nb), exitsA[i].second, kb});
            usedA[i] = usedB[j] = true;
            break;
          }
        if (usedB[j]) break;
      }
    }
    // What no consumer pairs (outputs read only by other changes): by order when the counts agree.
    std::vector<size_t> leftA, leftB;
    for (size_t i = 0; i < exitsA.size(); ++i) if (!usedA[i]) leftA.push_back(i);
    for (size_t j = 0; j < exitsB.size(); ++j) if (!usedB[j]) leftB.push_back(j);
    if (leftA.size() == leftB.size()) {
      for (size_t t = 0; t < leftA.size(); ++t) {
        const auto& ea = exitsA[leftA[t]];
        const auto& eb = exitsB[leftB[t]];
        g.exits.push_back({a.idOf(ea.first), b.idOf(eb.first), ea.second, eb.second});
      }
    } else {
      g.unpairedExits = int(std::max(leftA.size(), leftB.size()));
    }
  }
  return c;
}

}  // namespace graft::core::run
