#pragma once
// Internal to core/edit: the working copy an edit mutates, and the checks run before it becomes
// a revision. Nodes removed through `destroy` leave the id map, so a new node that happens to get
// a freed address never inherits an old NodeId.
#include "core/model/revision.h"

#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QString>
#include <unordered_map>
#include <unordered_set>

namespace graft::core::edit {

struct Refusal {
  model::NodeId node = model::kNoNode;
  QString message;
};

class EditContext {
 public:
  explicit EditContext(const model::Revision& base);

  torch::jit::Graph& graph() { return *copy_.graph; }
  std::shared_ptr<torch::jit::Graph> graphPtr() { return copy_.graph; }
  const std::unordered_map<const torch::jit::Node*, model::NodeId>& ids() const { return copy_.ids; }

  // The copy's node for `id`, or nullptr.
  torch::jit::Node* node(model::NodeId id) const;
  model::NodeId idOf(const torch::jit::Node* node) const;
  // "node 41 (aten::relu → %input.4)": how refusals name a node.
  QString label(const torch::jit::Node* node) const;

  // Marks a node whose inputs or schema changed: validation checks it.
  void touch(torch::jit::Node* node) { touched_.insert(node); }
  // Marks every user of `value`.
  void touchUsers(torch::jit::Value* value);
  void destroy(torch::jit::Node* node);
  // Destroys `node` if it is a prim::Constant or prim::ListConstruct nobody uses any more,
  // and then the constants that fed only it.
  void removeIfDeadConstant(torch::jit::Node* node);

  // Schema/type check of touched nodes, use-before-definition, Graph::lint.
  // `fallback` names the node a refusal is about when the offender is new.
  std::optional<Refusal> validate(model::NodeId fallback);

 private:
  model::Revision::GraphCopy copy_;
  std::unordered_map<model::NodeId, torch::jit::Node*> byId_;
  std::unordered_set<torch::jit::Node*> touched_;
};

// The registered operator whose schema `node` matches, or nullptr.
const c10::FunctionSchema* matchingSchema(const torch::jit::Node* node);

}  // namespace graft::core::edit
