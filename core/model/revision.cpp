#include "core/model/revision.h"

#include "core/model/change_inference.h"
#include "core/model/graph_walk.h"
#include "core/model/module_calls.h"
#include "core/model/module_path.h"

#include <torch/script.h>

#include <QtCore/QHash>

#include <sstream>
#include <utility>

namespace graft::core::model {

namespace {
// The deepest module holding all of `places`, and the first one's source line: where a node
// made from them is drawn.
NodePlace commonPlace(const std::vector<const NodePlace*>& places) {
  if (places.empty()) return {};
  NodePlace out = *places.front();
  for (const NodePlace* p : places) {
    qsizetype common = 0;
    while (common < out.modulePath.size() && common < p->modulePath.size() &&
           out.modulePath[common] == p->modulePath[common] && out.callAt(common) == p->callAt(common))
      ++common;
    out.truncate(common);
  }
  return out;
}
}  // namespace

RevisionPtr Revision::original(const torch::jit::Module& module, bool frozen, QString name, NodeIdSource& ids,
                               const std::vector<NodePlace>* savedPlaces, SymbolRanges symbolRanges,
                               const ModuleNames* moduleNames) {
  auto rev = std::shared_ptr<Revision>(new Revision());
  rev->module_ = std::make_shared<const torch::jit::Module>(module);
  rev->graph_ = module.get_method("forward").graph()->copy();
  rev->frozen_ = frozen;
  rev->name_ = std::move(name);
  rev->symbolRanges_ = std::move(symbolRanges);
  // Each node's place from its call stack; the calls of each module numbered in call order, op
  // nodes first (a constant hoisted to the top of the graph must not make its call the first).
  struct Pending {
    torch::jit::Node* node;
    NodeId id;
    NodePlace place;
    QStringList callKeys;
  };
  std::vector<Pending> pending;
  QHash<QString, QString> containerPaths;
  forEachNode(*rev->graph_, [&](torch::jit::Node* n) {
    const NodeId id = ids.next();
    rev->idByNode_[n] = id;
    rev->nodeById_[id] = n;
    Pending p{n, id, {}, {}};
    p.place = placeFromCallStack(n, &p.callKeys);
    if (moduleNames) completeContainerPaths(p.place.modulePath, p.place.moduleTypes, *moduleNames, containerPaths);
    pending.push_back(std::move(p));
  });
  CallNumbering calls;
  for (bool ops : {true, false})
    for (auto& p : pending)
      if (p.node->kind().is_prim() != ops) calls.number(p.place, p.callKeys);
  size_t ordinal = 0;
  for (auto& [n, id, place, keys] : pending) {
    if (!n->kind().is_prim() && savedPlaces && ordinal < savedPlaces->size()) {
      const NodePlace& saved = (*savedPlaces)[ordinal];
      if (place.modulePath.isEmpty()) {
        place.modulePath = saved.modulePath;
        place.moduleTypes = saved.moduleTypes;
        place.moduleCalls = saved.moduleCalls;
      }
      if (place.sourceLine <= 0 && saved.sourceLine > 0) {
        place.sourceFile = saved.sourceFile;
        place.sourceLine = saved.sourceLine;
        place.sourceText = saved.sourceText;
      }
    }
    if (!n->kind().is_prim()) ++ordinal;
    // The unpacking of a list or tuple result sits where its producer does.
    if (place.modulePath.isEmpty() && (n->kind() == c10::prim::ListUnpack || n->kind() == c10::prim::TupleUnpack))
      if (auto p = rev->places_.find(rev->idOf(n->input(0)->node())); p != rev->places_.end()) place = p->second;
    if (!place.modulePath.isEmpty() || place.sourceLine > 0) rev->places_[id] = std::move(place);
  }
  return rev;
}

RevisionPtr Revision::derived(const Revision& base, std::shared_ptr<torch::jit::Graph> graph,
                              const std::unordered_map<const torch::jit::Node*, NodeId>& carried,
                              QString name, NodeIdSource& ids) {
  auto rev = std::shared_ptr<Revision>(new Revision());
  rev->module_ = base.module_;
  rev->graph_ = std::move(graph);
  rev->frozen_ = base.frozen_;
  rev->trust_ = base.trust_;
  rev->symbolRanges_ = base.symbolRanges_;
  rev->name_ = std::move(name);
  forEachNode(*rev->graph_, [&](torch::jit::Node* n) {
    auto it = carried.find(n);
    const NodeId id = it != carried.end() ? it->second : ids.next();
    rev->idByNode_[n] = id;
    rev->nodeById_[id] = n;
  });
  rev->change_ = inferChange(base, *rev);
  rev->lineage_ = base.lineage_.then(rev->change_);
  // Places: a kept node keeps its own; a new node takes the place of what it derives from (a
  // rule's replacement stays in the module of the nodes it replaced), else its call stack, in the
  // call of a kept node with the same stack (the call sites that led there name the call).
  QHash<QString, const NodePlace*> placeByStack;  // the innermost call key -> a kept node's place
  bool stacksRead = false;
  const auto keptPlaceWithStack = [&](const QString& key) -> const NodePlace* {
    if (!std::exchange(stacksRead, true))
      for (const auto& [node, id] : rev->idByNode_) {
        auto p = base.nodeOf(id) ? base.places_.find(id) : base.places_.end();
        if (p == base.places_.end()) continue;
        QStringList keys;
        if (modulePathParts(node, nullptr, &keys) == p->second.modulePath && !keys.isEmpty())
          placeByStack.insert(keys.back(), &p->second);
      }
    return placeByStack.value(key);
  };
  for (const auto& [node, id] : rev->idByNode_) {
    if (base.nodeOf(id)) {
      if (auto p = base.places_.find(id); p != base.places_.end()) rev->places_[id] = p->second;
      continue;
    }
    std::vector<const NodePlace*> sources;
    if (auto c = rev->change_.changed.find(id); c != rev->change_.changed.end())
      for (NodeId from : c->second.from)
        if (auto p = base.places_.find(from); p != base.places_.end()) sources.push_back(&p->second);
    NodePlace place;
    if (!sources.empty()) {
      place = commonPlace(sources);
    } else {
      QStringList keys;
      place = placeFromCallStack(node, &keys);
      if (!keys.isEmpty())
        if (const NodePlace* kept = keptPlaceWithStack(keys.back()); kept && kept->modulePath == place.modulePath)
          place.moduleCalls = kept->moduleCalls;
    }
    if (!place.modulePath.isEmpty() || place.sourceLine > 0) rev->places_[id] = std::move(place);
  }
  return rev;
}

const NodePlace& Revision::placeOf(NodeId id) const {
  static const NodePlace kNowhere;
  auto it = places_.find(id);
  return it == places_.end() ? kNowhere : it->second;
}

QString Revision::kindOf(NodeId id) const {
  const torch::jit::Node* n = nodeOf(id);
  return n ? QString::fromStdString(n->kind().toQualString()) : QString();
}

std::vector<NodeId> Revision::opNodeIds() const {
  std::vector<NodeId> out;
  forEachNode(*graph_, [&](torch::jit::Node* n) {
    if (!n->kind().is_prim()) out.push_back(idOf(n));
  });
  return out;
}

Revision::GraphCopy Revision::cloneGraph() const {
  GraphCopy copy;
  copy.graph = graph_->copy();
  // Graph::copy clones blocks node by node in order, so both walks visit matching nodes.
  const auto source = allNodes(*graph_);
  const auto target = allNodes(*copy.graph);
  for (size_t i = 0; i < source.size() && i < target.size(); ++i)
    copy.ids[target[i]] = idOf(source[i]);
  return copy;
}

NodeId Revision::idOf(const torch::jit::Node* node) const {
  auto it = idByNode_.find(node);
  return it == idByNode_.end() ? kNoNode : it->second;
}

torch::jit::Node* Revision::nodeOf(NodeId id) const {
  auto it = nodeById_.find(id);
  return it == nodeById_.end() ? nullptr : it->second;
}

std::vector<NodeId> Revision::nodeIds() const {
  std::vector<NodeId> out;
  forEachNode(*graph_, [&](torch::jit::Node* n) { out.push_back(idOf(n)); });
  return out;
}

QString Revision::irText() const {
  std::ostringstream os;
  os << *graph_;
  return QString::fromStdString(os.str());
}

namespace {

// Pairs each module type of `from` with the matching type in its clone `to`, so a graph written
// against the original types can be retargeted to the clone.
void collectTypeRemap(const torch::jit::Module& from, const torch::jit::Module& to,
                      std::unordered_map<c10::TypePtr, c10::TypePtr>& remap) {
  remap[from.type()] = to.type();
  std::vector<torch::jit::Module> fromChildren, toChildren;
  for (const auto& c : from.children()) fromChildren.push_back(c);
  for (const auto& c : to.children()) toChildren.push_back(c);
  for (size_t i = 0; i < fromChildren.size() && i < toChildren.size(); ++i)
    collectTypeRemap(fromChildren[i], toChildren[i], remap);
}

void retype(torch::jit::Block* block, const std::unordered_map<c10::TypePtr, c10::TypePtr>& remap) {
  auto fix = [&](torch::jit::Value* v) {
    auto it = remap.find(v->type());
    if (it != remap.end()) v->setType(it->second);
  };
  for (auto* v : block->inputs()) fix(v);
  for (auto* n : block->nodes()) {
    for (auto* v : n->outputs()) fix(v);
    for (auto* sub : n->blocks()) retype(sub, remap);
  }
}

}  // namespace

torch::jit::Module Revision::runnable() const {
  std::lock_guard lock(runnableMutex_);
  if (runnable_) return *runnable_;
  // A new class type that shares the loaded module's data, with this revision's graph as forward.
  auto clone = std::make_shared<torch::jit::Module>(module_->clone(true, {"forward"}, {}));
  std::unordered_map<c10::TypePtr, c10::TypePtr> remap;
  collectTypeRemap(*module_, *clone, remap);
  auto graph = graph_->copy();
  retype(graph->block(), remap);
  auto cu = clone->_ivalue()->compilation_unit();
  auto* fn = cu->create_function(c10::QualifiedName(*clone->type()->name(), "forward"), graph,
                                 /*shouldMangle=*/true);
  // The loaded forward's signature (argument names and defaults such as `targets=None`), so a
  // saved file takes the same inputs as the original; kept only while the inputs still fit it.
  if (auto loaded = module_->find_method("forward")) {
    const auto& schema = loaded->function().getSchema();
    const auto inputs = graph->inputs();
    if (schema.arguments().size() == inputs.size()) {
      std::vector<c10::Argument> args;
      bool fits = true;
      for (size_t i = 0; i < inputs.size() && fits; ++i) {
        const c10::Argument& a = schema.arguments()[i];
        fits = i == 0 || inputs[i]->type()->isSubtypeOf(*a.type());
        args.push_back(i == 0 ? a.cloneWithType(inputs[0]->type()) : a);
      }
      if (fits) fn->setSchema(schema.cloneWithArguments(std::move(args)));
    }
  }
  clone->type()->addMethod(fn);
  runnable_ = clone;
  return *runnable_;
}

Revision::~Revision() = default;

}  // namespace graft::core::model
