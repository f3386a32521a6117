#pragma once
// The named rewrites that are code, not pattern files: Graft's built-in computed rules (named by
// a rule file's `builtin:` key) and libtorch's own graph passes (`--pass NAME`).
#include "core/rewrite/pattern_rewrite.h"

#include <functional>

namespace graft::core::rewrite {

struct NamedPass {
  QString name;
  QString title;
  // `onlyAt`: rewrite only the match covering that node (built-in rewrites; passes refuse it).
  std::function<RewriteOutcome(std::shared_ptr<torch::jit::Graph>&, bool dryRun, const torch::jit::Node* onlyAt)> run;
};

// fold-conv-bn, fold-linear-bn: used by rule files that say `builtin: NAME`.
const QVector<NamedPass>& computedRewrites();
// constant-propagation, dead-code-elimination, cse: libtorch passes; `matches` is how many ops
// they removed or added as a diff lists ops (model::isOpOfItsOwn), as libtorch reports no
// per-match detail: constants, lists and size computations merged or folded are not matches.
const QVector<NamedPass>& libtorchPasses();
// A pattern rule through SubgraphRewriter, or a `builtin:` rule through its code.
RewriteOutcome applyRuleOnGraph(const Rule& rule, std::shared_ptr<torch::jit::Graph>& graph, bool dryRun,
                                const torch::jit::Node* onlyAt = nullptr, const PathOf& pathOf = {});

// After lint(): every aten:: node must still fit one of its operator's schemas (a replacement
// with wrongly typed arguments would otherwise fail much later, inside libtorch). Empty when fine.
QString checkSchemas(const torch::jit::Graph& graph);

const NamedPass* findNamed(const QVector<NamedPass>& list, const QString& name);

}  // namespace graft::core::rewrite
