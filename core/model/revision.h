#pragma once
// An immutable snapshot of a model: the module, its forward graph, the NodeId of every node,
// Graft's record of each node's place (module path, source line) and its provenance: what the
// change that made it did (`change`) and where each node comes from in the original (`lineage`).
#include "core/model/ids.h"
#include "core/model/module_path.h"
#include "core/model/node_place.h"
#include "core/model/provenance.h"
#include "core/model/symbol_ranges.h"

#include <QtCore/QString>
#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace torch::jit {
struct Graph;
struct Node;
struct Module;
}  // namespace torch::jit

namespace graft::core::model {

class Revision;

// Whether the user trusts the file a document comes from to run ops that reach outside the process
// (model/effect_ops.h): `--trust`, or yes to the window's prompt. One flag shared by every revision
// of a document, so trusting later covers the revisions made before. Untrusted by default.
class SourceTrust {
 public:
  bool trusted() const { return trusted_.load(); }
  void grant() { trusted_.store(true); }

 private:
  std::atomic<bool> trusted_{false};
};

using RevisionPtr = std::shared_ptr<const Revision>;

// Hands out NodeIds that are never reused within one document.
class NodeIdSource {
 public:
  NodeId next() { return ++last_; }
  NodeId last() const { return last_; }
  void advanceTo(NodeId id) { if (id > last_) last_ = id; }

 private:
  NodeId last_ = kNoNode;
};

class Revision {
 public:
  // The first revision of a document: every node gets a fresh id.
  // `savedPlaces` (a file saved by Graft): the places of its op nodes in graph order, which the
  // file's own call stacks no longer hold; nodes beyond it or without one take their call stack.
  // `symbolRanges`: a torch.export program's range_constraints (derived revisions keep them).
  // `moduleNames`: the submodules of the module before freezing, which complete a traced
  // module's paths through containers (model/module_path.h).
  static RevisionPtr original(const torch::jit::Module& module, bool frozen, QString name,
                              NodeIdSource& ids, const std::vector<NodePlace>* savedPlaces = nullptr,
                              SymbolRanges symbolRanges = {}, const ModuleNames* moduleNames = nullptr);

  // Builds a successor: `graph` must be a graph derived from `base.cloneGraph()` through `edit`,
  // and `carried` maps nodes of the new graph that descend from base nodes to their ids.
  // Nodes not in `carried` get fresh ids. The change is inferred from the two graphs
  // (model/change_inference.h), so every way of making a revision records its provenance.
  static RevisionPtr derived(const Revision& base, std::shared_ptr<torch::jit::Graph> graph,
                             const std::unordered_map<const torch::jit::Node*, NodeId>& carried,
                             QString name, NodeIdSource& ids);

  // A deep copy of the graph (constants and weights are shared) plus the mapping
  // from copied nodes to this revision's ids, for edits to start from.
  struct GraphCopy {
    std::shared_ptr<torch::jit::Graph> graph;
    std::unordered_map<const torch::jit::Node*, NodeId> ids;
  };
  GraphCopy cloneGraph() const;

  const torch::jit::Module& module() const { return *module_; }
  std::shared_ptr<torch::jit::Graph> graph() const { return graph_; }
  bool frozen() const { return frozen_; }
  // The document's trust in its source, shared by all its revisions (derived ones inherit it).
  const std::shared_ptr<SourceTrust>& sourceTrust() const { return trust_; }
  // The ranges the program allows its symbolic dimensions (empty for TorchScript).
  const SymbolRanges& symbolRanges() const { return symbolRanges_; }
  const QString& name() const { return name_; }

  // What the change that made this revision did to its parent's nodes (empty for an original).
  const Change& change() const { return change_; }
  // Where each node comes from in the document's original.
  const Lineage& lineage() const { return lineage_; }
  // The node's module path and source line (an empty place when the node is unknown).
  const NodePlace& placeOf(NodeId id) const;
  // The module call as tables name it ("layer1.0.relu (2)" for the second call of
  // layer1.0.relu); placeOf(id).path() is the module itself, for rules and pairing by module.
  QString modulePathOf(NodeId id) const { return placeOf(id).callPath(); }
  // Ids of the op nodes (kind not prim::), in graph order: how a saved file names its nodes.
  std::vector<NodeId> opNodeIds() const;
  // "aten::conv2d"; empty for an unknown id.
  QString kindOf(NodeId id) const;

  NodeId idOf(const torch::jit::Node* node) const;
  torch::jit::Node* nodeOf(NodeId id) const;
  // Every node id in graph order (nested blocks included).
  std::vector<NodeId> nodeIds() const;

  // The graph's IR as TorchScript prints it.
  QString irText() const;

  // A module whose forward is this revision's graph: for running and saving.
  // Built on first use; weights are shared with the loaded module.
  torch::jit::Module runnable() const;

  ~Revision();

 private:
  Revision() = default;
  std::shared_ptr<const torch::jit::Module> module_;
  std::shared_ptr<torch::jit::Graph> graph_;
  std::unordered_map<const torch::jit::Node*, NodeId> idByNode_;
  std::unordered_map<NodeId, torch::jit::Node*> nodeById_;
  mutable std::shared_ptr<torch::jit::Module> runnable_;
  mutable std::mutex runnableMutex_;
  bool frozen_ = true;
  std::shared_ptr<SourceTrust> trust_ = std::make_shared<SourceTrust>();
  SymbolRanges symbolRanges_;
  QString name_;
  Change change_;
  Lineage lineage_;
  std::unordered_map<NodeId, NodePlace> places_;
};

}  // namespace graft::core::model
