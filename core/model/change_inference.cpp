#include "core/model/change_inference.h"

#include "core/model/constant_value.h"
#include "core/model/folding.h"
#include "core/model/graph_walk.h"
#include "core/model/revision.h"

#include <torch/csrc/jit/ir/constants.h>

#include <unordered_set>

namespace graft::core::model {

namespace {

using torch::jit::Node;
using torch::jit::Value;

// Constants compare by value (model::sameConstantValue: a rescaled weight holds other numbers; a
// merged copy of equal numbers is the same constant).
bool sameConstant(const Value* a, const Value* b) {
  const auto ia = constantValue(a);
  const auto ib = constantValue(b);
  if (!ia || !ib) {
    // Parameters of an unfrozen model: the same chain of attribute names from `self`.
    const Node* na = a->node();
    const Node* nb = b->node();
    if (na->kind() == c10::prim::Param && nb->kind() == c10::prim::Param) return a->offset() == b->offset();
    return na->kind() == c10::prim::GetAttr && nb->kind() == c10::prim::GetAttr &&
           na->s(c10::attr::name) == nb->s(c10::attr::name) && sameConstant(na->input(0), nb->input(0));
  }
  return sameConstantValue(*ia, *ib);
}

// The kept node that removed node `r` was folded into, if any: r's producer, whose output only
// r read, kept with new constants (a batch norm folded into its convolution's weights). Found
// first, so a fold stays a fold when a later step of the same rewrite replaced r's consumer too
// (fold-conv-bn, then hardswish-decompose of the hardswish_ after it).
Node* foldedIntoProducer(const Node* r, const Revision& parent, const Revision& child) {
  if (r->inputs().empty()) return nullptr;
  const Value* in = r->input(0);
  const Node* producer = in->node();
  if (isFolded(producer) || producer->kind() == c10::prim::Param || in->uses().size() != 1) return nullptr;
  Node* now = child.nodeOf(parent.idOf(producer));
  if (!now || now->kind() != producer->kind() || now->inputs().size() != producer->inputs().size()) return nullptr;
  bool newConstants = false;
  for (size_t i = 0; i < producer->inputs().size(); ++i) {
    const Value* a = producer->input(i);
    const Value* b = now->input(i);
    if (isFolded(a->node()) && isFolded(b->node()) && !sameConstant(a, b)) newConstants = true;
  }
  return newConstants ? now : nullptr;
}

// Does kept node `now` (child) read what `was` (parent) read, and run the same op? A producer that
// was removed counts as the same when `now` reads the node it was folded into.
template <typename Absorbed>
bool sameComputation(const Node* was, const Node* now, const Revision& parent, const Revision& child,
                     const Absorbed& absorbedInto) {
  if (was->kind() != now->kind() || was->inputs().size() != now->inputs().size()) return false;
  for (size_t i = 0; i < was->inputs().size(); ++i) {
    const Value* a = was->input(i);
    const Value* b = now->input(i);
    if (isFolded(a->node()) || isFolded(b->node())) {
      if (!(isFolded(a->node()) && isFolded(b->node()) && sameConstant(a, b))) return false;
      continue;
    }
    if (a->offset() != b->offset()) return false;
    const bool paramA = a->node()->kind() == c10::prim::Param, paramB = b->node()->kind() == c10::prim::Param;
    if (paramA || paramB) {
      // A block's inputs: same position of the same owner.
      if (!(paramA && paramB)) return false;
      const Node* ownerA = a->node()->owningBlock()->owningNode();
      const Node* ownerB = b->node()->owningBlock()->owningNode();
      if ((ownerA == nullptr) != (ownerB == nullptr)) return false;
      if (ownerA && parent.idOf(ownerA) != child.idOf(ownerB)) return false;
      continue;
    }
    const NodeId before = parent.idOf(a->node()), after = child.idOf(b->node());
    if (before != after && !absorbedInto(before, after)) return false;
  }
  return true;
}

// The node standing where `user` (a parent node) stood in the child: its own copy, or the return
// of the matching block.
Node* counterpart(const Node* user, const Revision& parent, const Revision& child) {
  if (user->kind() != c10::prim::Return) return child.nodeOf(parent.idOf(user));
  const torch::jit::Block* block = user->owningBlock();
  const Node* owner = block->owningNode();
  if (!owner) return child.graph()->return_node();
  Node* ownerNow = child.nodeOf(parent.idOf(owner));
  if (!ownerNow) return nullptr;
  for (size_t i = 0; i < owner->blocks().size() && i < ownerNow->blocks().size(); ++i)
    if (owner->blocks()[i] == block) return ownerNow->blocks()[i]->return_node();
  return nullptr;
}

}  // namespace

Change inferChange(const Revision& parent, const Revision& child) {
  Change change;
  std::unordered_set<NodeId> alive;
  forEachNode(*child.graph(), [&](Node* n) {
    if (isFolded(n)) return;
    const NodeId id = child.idOf(n);
    alive.insert(id);
    if (!parent.nodeOf(id)) change.changed[id] = Origin{{}, true};
  });

  auto absorb = [&](NodeId into, NodeId removed) {
    auto [it, inserted] = change.changed.try_emplace(into, Origin{{into}, false});
    auto& from = it->second.from;
    if (std::find(from.begin(), from.end(), removed) == from.end()) from.push_back(removed);
  };
  // Removed nodes last to first, so a removed node whose consumer was removed too (the linear
  // of a fused linear + relu) goes where that consumer went.
  std::vector<Node*> removed;
  forEachNode(*parent.graph(), [&](Node* r) {
    if (!isFolded(r) && !alive.count(parent.idOf(r))) removed.push_back(r);
  });
  std::unordered_map<NodeId, std::vector<NodeId>> targetsOf;  // removed node → child nodes that absorbed it
  for (auto ri = removed.rbegin(); ri != removed.rend(); ++ri) {
    Node* r = *ri;
    const NodeId rid = parent.idOf(r);
    change.removed.push_back(rid);
    std::vector<NodeId>& targets = targetsOf[rid];
    // Each target once: a removed node inherits its removed users' targets, and a value read
    // along two paths that meet again (a residual block's branch and its skip) would otherwise
    // hand on every target twice, doubling per block across a removed stretch of a deep network.
    auto take = [&](NodeId into) {
      if (std::find(targets.begin(), targets.end(), into) != targets.end()) return;
      absorb(into, rid);
      targets.push_back(into);
    };
    if (Node* producer = foldedIntoProducer(r, parent, child)) {
      take(child.idOf(producer));
      continue;
    }
    for (Value* out : r->outputs())
      for (const auto& use : out->uses()) {
        Node* user = counterpart(use.user, parent, child);
        if (!user) {
          auto t = targetsOf.find(parent.idOf(use.user));
          if (t == targetsOf.end()) continue;
          // A consumer removed too and merged into its twin (the same op reading as many inputs,
          // as CSE merges two views of equal buffers and the lists holding them): r stands where
          // the twin reads the input r fed, so r goes to that value's node, as it would had the
          // consumer been kept. Otherwise r goes where its consumer went.
          Node* twin = t->second.size() == 1 ? child.nodeOf(t->second.front()) : nullptr;
          if (!twin || twin->kind() != use.user->kind() || twin->inputs().size() != use.user->inputs().size()) {
            for (NodeId into : std::vector<NodeId>(t->second)) take(into);
            continue;
          }
          user = twin;
        }
        if (use.offset >= user->inputs().size()) continue;
        // The value read in r's place: a kept node (r was folded into it or bypassed to it), or
        // new nodes (a replacement), walked back to the kept nodes and inputs they read.
        Node* first = user->input(use.offset)->node();
        if (isFolded(first) || first->kind() == c10::prim::Param) {
          if (user->kind() != c10::prim::Return) take(child.idOf(user));
          continue;
        }
        if (parent.nodeOf(child.idOf(first))) {
          take(child.idOf(first));
          continue;
        }
        std::vector<Node*> todo{first};
        std::unordered_set<Node*> seen;
        while (!todo.empty()) {
          Node* p = todo.back();
          todo.pop_back();
          if (!seen.insert(p).second || isFolded(p) || p->kind() == c10::prim::Param) continue;
          const NodeId pid = child.idOf(p);
          if (parent.nodeOf(pid)) continue;  // a kept node the replacement reads
          take(pid);
          for (Value* in : p->inputs()) todo.push_back(in->node());
        }
      }
  }
  std::reverse(change.removed.begin(), change.removed.end());

  // Kept nodes that compute something else now (an edited constant, a new input).
  auto absorbedInto = [&](NodeId removedId, NodeId into) {
    auto t = targetsOf.find(removedId);
    return t != targetsOf.end() && std::find(t->second.begin(), t->second.end(), into) != t->second.end();
  };
  forEachNode(*child.graph(), [&](Node* n) {
    if (isFolded(n)) return;
    const NodeId id = child.idOf(n);
    const Node* was = parent.nodeOf(id);
    if (!was || sameComputation(was, n, parent, child, absorbedInto)) return;
    auto [it, inserted] = change.changed.try_emplace(id, Origin{{id}, true});
    it->second.altered = true;
  });
  for (auto& [id, origin] : change.changed) std::sort(origin.from.begin(), origin.from.end());
  return change;
}

}  // namespace graft::core::model
