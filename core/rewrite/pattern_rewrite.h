#pragma once
// Pattern rules: libtorch's subgraph matcher finds the matches, Graft checks conditions and overlaps,
// says why each skipped candidate was skipped, and replaces each accepted match in its own block.
// Internal to core/rewrite: callers use apply.h.
#include "core/rewrite/rule.h"

#include <functional>
#include <memory>
#include <vector>

namespace torch::jit { struct Graph; struct Node; }

namespace graft::core::rewrite {

// A node's module path, for `module ~ glob` conditions: the revision's place table for nodes it
// knows, else the node's call stack (null: the call stack alone).
using PathOf = std::function<QString(const torch::jit::Node*)>;

struct Skip {
  QString reason;
  const torch::jit::Node* node = nullptr;  // the candidate's anchor (the op producing the result)
  QString op;
  bool notChosen = false;  // as SkippedMatch::notChosen
};

// One accepted match: its anchor and the op nodes it covers (constants left out).
struct Found {
  const torch::jit::Node* anchor = nullptr;
  std::vector<const torch::jit::Node*> nodes;
};

struct RewriteOutcome {
  int matches = 0;
  QVector<Skip> skipped;
  QString error;  // the rule could not run at all
  std::vector<Found> found;  // the accepted matches, recorded before rewriting
};

// Keeps the accepted matches that cover `onlyAt` (all of them when null), reporting the others
// as skipped; true when one is left.
bool keepOnlyMatchAt(std::vector<Found>& found, const torch::jit::Node* onlyAt, QVector<Skip>& skipped);

// Finds the rule's matches in `graph`, checks conditions and overlaps, and (unless `dryRun`)
// rewrites the accepted ones in place; with `onlyAt`, only the match covering that node. Candidates that look like the
// pattern but that the matcher rejects (an inner value used outside, a differing constant) are reported as skipped too.
RewriteOutcome applyPatternRule(const Rule& rule, std::shared_ptr<torch::jit::Graph>& graph, bool dryRun,
                                const torch::jit::Node* onlyAt = nullptr, const PathOf& pathOf = {});


}  // namespace graft::core::rewrite
