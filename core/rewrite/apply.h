#pragma once
// Applying rules and passes to a Revision: one new Revision for the whole list, so a single
// Document::commit makes it one undo step. No libtorch types here.
#include "core/model/revision.h"
#include "core/rewrite/rule.h"

namespace graft::core::rewrite {

struct SkippedMatch {
  QString reason;
  model::NodeId node = model::kNoNode;  // in the base revision, when the node came from it
  QString op;
  // Skipped only because the step was limited to another match (Step::onlyAt): not a problem
  // with this one, so a caller that asked for one instance may leave it out of its report.
  bool notChosen = false;
  // A "rewrite" warning: "rule: skipped a match at op: reason", about `node`.
  model::Diagnostic diagnostic(const QString& rule) const;
};

// Where one accepted match sits, in the base revision: its anchor (the op producing the
// pattern's result) and every op node it covers.
struct MatchSite {
  model::NodeId anchor = model::kNoNode;
  QVector<model::NodeId> nodes;
  QString where;  // "layer1.0.bn1 (aten::batch_norm)": previews only (countMatches)
};

struct StepReport {
  QString name;   // rule id or pass name
  QString kind;   // "rule", "builtin" or "pass"
  int matches = 0;
  QVector<SkippedMatch> skipped;
  QVector<MatchSite> sites;  // rules only: libtorch passes report no per-match detail
};

struct Step {
  Rule rule;       // used when pass is empty
  QString pass;    // a libtorch pass name (see passes.h)
  model::NodeId onlyAt = model::kNoNode;  // rewrite only the match covering this node
  static Step ofRule(Rule r) { return Step{std::move(r), {}, model::kNoNode}; }
  static Step ofRuleAt(Rule r, model::NodeId node) { return Step{std::move(r), {}, node}; }
  static Step ofPass(QString name) { return Step{{}, std::move(name), model::kNoNode}; }
};

struct ApplyResult {
  model::RevisionPtr revision;  // null on error
  QVector<StepReport> reports;
  QString error;
  model::NodeId errorNode = model::kNoNode;  // the node the error is about, when there is one
  int opsBefore = 0, opsAfter = 0;
  // The rewrite left the graph as it was (no match, or a pass with nothing to do): the session
  // records no revision for it.
  bool unchanged = false;
  bool ok() const { return revision != nullptr; }
  // The error, if any, then every skipped match of every step.
  model::Diagnostics diagnostics() const;
};

// Runs `steps` in order on a copy of `base`'s graph, lints after each, and derives the new revision.
ApplyResult applySteps(const model::Revision& base, const QVector<Step>& steps, model::NodeIdSource& ids,
                       const QString& name = {});

// For previews: the matches `rule` has in `revision`, with their sites (nothing is changed).
StepReport previewMatches(const model::Revision& revision, const Rule& rule, QString* error = nullptr);

// Names of libtorch passes usable as steps.
QStringList passNames();
bool isPassName(const QString& name);

// Ops (nodes whose kind is not prim::) of a revision.
int opCount(const model::Revision& revision);

}  // namespace graft::core::rewrite
