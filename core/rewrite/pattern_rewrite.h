#pragma once
// Pattern rules on libtorch's SubgraphRewriter, with a reason for every candidate it skips.
// Internal to core/rewrite: callers use apply.h.
#include "core/rewrite/rule.h"

#include <memory>

namespace torch::jit { struct Graph; struct Node; }

namespace graft::core::rewrite {

struct Skip {
  QString reason;
  const torch::jit::Node* node = nullptr;  // the candidate's anchor (the op producing the result)
  QString op;
};

struct RewriteOutcome {
  int matches = 0;
  QVector<Skip> skipped;
  QString error;  // the rule could not run at all
};

// Finds the rule's matches in `graph`, checks conditions and overlaps, and (unless `dryRun`)
// rewrites the accepted ones in place. Candidates that look like the pattern but that the matcher
// rejects (an inner value used outside, a differing constant) are reported as skipped too.
RewriteOutcome applyPatternRule(const Rule& rule, std::shared_ptr<torch::jit::Graph>& graph, bool dryRun);


}  // namespace graft::core::rewrite
