#include "core/rewrite/passes.h"
#include <QtCore/QRegularExpression>
#include "core/model/folding.h"
#include "core/model/graph_walk.h"
#include "core/model/module_path.h"

#include "core/rewrite/fold_batchnorm.h"

#include <torch/csrc/jit/passes/common_subexpression_elimination.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/ir/constants.h>

#include <unordered_map>

namespace graft::core::rewrite {

namespace {

// The ops of a graph as a diff lists them (model::isOpOfItsOwn), nested blocks included, with the
// kind each had, so a node freed by the pass and an op made at its address later are told apart.
std::unordered_map<const torch::jit::Node*, c10::Symbol> opsOf(const torch::jit::Graph& graph) {
  std::unordered_map<const torch::jit::Node*, c10::Symbol> ops;
  model::forEachNode(graph, [&](torch::jit::Node* n) {
    if (model::isOpOfItsOwn(n)) ops.emplace(n, n->kind());
  });
  return ops;
}

// Runs a libtorch pass on the graph (or a copy when only counting). Its matches are the ops it
// changed, as a diff of the result lists them: ops removed plus ops added. Constants it merged or
// folded, lists and size computations are attributes of their op, not ops (cse on a model with
// nothing to share makes 0 matches, not one per merged constant).
NamedPass wrap(const char* name, const char* title, std::function<void(std::shared_ptr<torch::jit::Graph>&)> pass) {
  return NamedPass{QString::fromLatin1(name), QString::fromLatin1(title),
                   [pass](std::shared_ptr<torch::jit::Graph>& graph, bool dryRun, const torch::jit::Node* onlyAt) {
                     RewriteOutcome out;
                     if (onlyAt) {
                       out.error = QStringLiteral("a libtorch pass rewrites the whole graph, not one match");
                       return out;
                     }
                     auto g = dryRun ? graph->copy() : graph;
                     const auto before = opsOf(*g);
                     pass(g);
                     const auto after = opsOf(*g);
                     int kept = 0, added = 0;
                     for (const auto& [node, kind] : after) {
                       auto it = before.find(node);
                       if (it != before.end() && it->second == kind) ++kept;
                       else ++added;
                     }
                     out.matches = int(before.size()) - kept + added;
                     return out;
                   }};
}

// Whether a constant's value is or holds a tensor (an index list of aten::index holds a buffer).
bool holdsTensor(const c10::IValue& v) {
  if (v.isTensor()) return true;
  if (v.isList()) {
    for (const c10::IValue& e : v.toListRef())
      if (holdsTensor(e)) return true;
  } else if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements())
      if (holdsTensor(e)) return true;
  } else if (v.isGenericDict()) {
    for (const auto& e : v.toGenericDict())
      if (holdsTensor(e.value())) return true;
  }
  return false;
}

const c10::Symbol& identityMark() {
  static const c10::Symbol mark = c10::Symbol::attr("graft_identity");
  return mark;
}

// Common-subexpression elimination that keeps every parameter, buffer and get_attr constant.
// A tensor constant is an identity, not a value: two that hold equal numbers (zero biases,
// LayerNorm weights of 1, a distillation token equal to the CLS token) stay two, or the saved
// model could no longer be trained as the original. libtorch's pass compares tensor constants
// by value, so each constant holding a tensor is marked with the tensor it holds for the pass's
// duration: only constants of the very same tensor (tied weights) compare equal.
void eliminateCommonSubexpressionKeepingTensors(std::shared_ptr<torch::jit::Graph>& g) {
  std::unordered_map<const void*, int64_t> identities;
  model::forEachNode(*g, [&](torch::jit::Node* n) {
    if (n->kind() != c10::prim::Constant || n->outputs().size() != 1) return;
    const auto v = torch::jit::toIValue(n->output());
    if (!v || !holdsTensor(*v)) return;
    const void* identity =
        v->isTensor() ? static_cast<const void*>(v->toTensor().unsafeGetTensorImpl()) : v->internalToPointer();
    n->i_(identityMark(), identities.emplace(identity, int64_t(identities.size())).first->second);
  });
  const auto unmark = [&] {
    model::forEachNode(*g, [&](torch::jit::Node* n) {
      if (n->hasAttribute(identityMark())) n->removeAttribute(identityMark());
    });
  };
  try {
    torch::jit::EliminateCommonSubexpression(g);
  } catch (...) {
    unmark();
    throw;
  }
  unmark();
}

}  // namespace

const QVector<NamedPass>& computedRewrites() {
  static const QVector<NamedPass> list{
      {QStringLiteral("fold-conv-bn"), QStringLiteral("Fold batch_norm into the convolution before it"),
       [](std::shared_ptr<torch::jit::Graph>& g, bool dry, const torch::jit::Node* at) {
         return foldConvBatchNorm(*g, dry, at);
       }},
      {QStringLiteral("fold-linear-bn"), QStringLiteral("Fold batch_norm into the linear before it"),
       [](std::shared_ptr<torch::jit::Graph>& g, bool dry, const torch::jit::Node* at) {
         return foldLinearBatchNorm(*g, dry, at);
       }},
  };
  return list;
}

const QVector<NamedPass>& libtorchPasses() {
  static const QVector<NamedPass> list{
      wrap("constant-propagation", "Constant propagation (torch::jit::ConstantPropagation)",
           [](std::shared_ptr<torch::jit::Graph>& g) { torch::jit::ConstantPropagation(g); }),
      wrap("dead-code-elimination", "Dead-code elimination (torch::jit::EliminateDeadCode)",
           [](std::shared_ptr<torch::jit::Graph>& g) { torch::jit::EliminateDeadCode(g); }),
      wrap("cse", "Common-subexpression elimination (torch::jit::EliminateCommonSubexpression)",
           [](std::shared_ptr<torch::jit::Graph>& g) { eliminateCommonSubexpressionKeepingTensors(g); }),
  };
  return list;
}

RewriteOutcome applyRuleOnGraph(const Rule& rule, std::shared_ptr<torch::jit::Graph>& graph, bool dryRun,
                                const torch::jit::Node* onlyAt, const PathOf& pathOf) {
  if (!rule.isComputed()) return applyPatternRule(rule, graph, dryRun, onlyAt, pathOf);
  const NamedPass* p = findNamed(computedRewrites(), rule.computed);
  if (!p) return RewriteOutcome{0, {}, QStringLiteral("unknown builtin '%1'").arg(rule.computed)};
  if (rule.conditions.isEmpty()) return p->run(graph, dryRun, onlyAt);
  // `module ~ GLOB` conditions: every op of a match must be in a matching module. The matches
  // that pass are then rewritten one at a time (a built-in rewrites one match by a node of it).
  RewriteOutcome found = p->run(graph, /*dryRun=*/true, onlyAt);
  if (!found.error.isEmpty()) return found;
  RewriteOutcome out;
  out.skipped = found.skipped;
  std::vector<const torch::jit::Node*> accepted;
  for (const Found& f : found.found) {
    QString why;
    for (const Condition& c : rule.conditions) {
      const QRegularExpression re(QRegularExpression::wildcardToRegularExpression(c.expected));
      for (const auto* n : f.nodes) {
        const QString path = pathOf ? pathOf(n) : model::modulePath(n);
        if (why.isEmpty() && !re.match(path).hasMatch())
          why = QStringLiteral("condition `%1` failed: %2 is in module '%3'")
                    .arg(c.text, QString::fromStdString(n->kind().toQualString()), path);
      }
    }
    if (why.isEmpty()) accepted.push_back(f.anchor);
    else out.skipped.push_back({why, f.anchor, QString::fromStdString(f.anchor->kind().toQualString())});
  }
  for (const Found& f : found.found)
    if (std::find(accepted.begin(), accepted.end(), f.anchor) != accepted.end()) out.found.push_back(f);
  out.matches = int(accepted.size());
  if (dryRun) return out;
  for (const auto* anchor : accepted) {
    const RewriteOutcome one = p->run(graph, false, anchor);
    if (!one.error.isEmpty()) return one;
  }
  return out;
}

QString checkSchemas(const torch::jit::Graph& graph) {
  QString problem;
  std::function<void(torch::jit::Block*)> walk = [&](torch::jit::Block* b) {
    for (auto* n : b->nodes()) {
      if (!problem.isEmpty()) return;
      if (n->kind().is_aten() && !n->maybeSchema()) {
        QStringList types;
        for (auto* v : n->inputs()) types << QString::fromStdString(v->type()->repr_str());
        problem = QStringLiteral("%1(%2) fits none of its schemas")
                      .arg(QString::fromStdString(n->kind().toQualString()), types.join(QStringLiteral(", ")));
      }
      for (auto* sub : n->blocks()) walk(sub);
    }
  };
  walk(const_cast<torch::jit::Graph&>(graph).block());
  return problem;
}

const NamedPass* findNamed(const QVector<NamedPass>& list, const QString& name) {
  for (const auto& p : list)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace graft::core::rewrite
