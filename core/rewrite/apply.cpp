#include "core/rewrite/apply.h"

#include "core/model/graph_walk.h"
#include "core/model/module_path.h"
#include "core/rewrite/passes.h"
#include "core/rewrite/type_check.h"

#include <torch/csrc/jit/ir/ir.h>

#include <unordered_set>

namespace graft::core::rewrite {

namespace {

int countOps(const torch::jit::Graph& graph) {
  int ops = 0;
  model::forEachNode(graph, [&](torch::jit::Node* n) { ops += n->kind().is_prim() ? 0 : 1; });
  return ops;
}

// Node → id of the base revision, with the kind it had, so entries for nodes a step destroyed
// are dropped before a later step could reuse their address.
struct Carried {
  std::unordered_map<const torch::jit::Node*, std::pair<model::NodeId, c10::Symbol>> byNode;
  void prune(const torch::jit::Graph& graph) {
    std::unordered_set<const torch::jit::Node*> live;
    model::forEachNode(graph, [&](torch::jit::Node* n) { live.insert(n); });
    for (auto it = byNode.begin(); it != byNode.end();) {
      const bool keep = live.count(it->first) && it->first->kind() == it->second.second;
      it = keep ? std::next(it) : byNode.erase(it);
    }
  }
};

RewriteOutcome runStep(const Step& step, std::shared_ptr<torch::jit::Graph>& graph, bool dryRun,
                       const torch::jit::Node* onlyAt, QString& kind, const PathOf& pathOf) {
  if (!step.pass.isEmpty()) {
    kind = QStringLiteral("pass");
    const NamedPass* p = findNamed(libtorchPasses(), step.pass);
    if (!p)
      return RewriteOutcome{
          0,
          {},
          QStringLiteral("unknown pass '%1' (known: %2)").arg(step.pass, passNames().join(QStringLiteral(", ")))};
    return p->run(graph, dryRun, onlyAt);
  }
  kind = step.rule.isComputed() ? QStringLiteral("builtin") : QStringLiteral("rule");
  return applyRuleOnGraph(step.rule, graph, dryRun, onlyAt, pathOf);
}

// The match sites of `outcome`, in the ids `idOf` gives (nodes without one are left out).
// `alive`: the nodes were not rewritten, so they can be described.
template <typename IdOf>
QVector<MatchSite> sitesOf(const RewriteOutcome& outcome, IdOf idOf, bool alive, const PathOf& pathOf) {
  QVector<MatchSite> sites;
  for (const Found& f : outcome.found) {
    MatchSite site{idOf(f.anchor), {}, {}};
    if (alive) {
      const QString op = QString::fromStdString(f.anchor->kind().toQualString());
      const QString path = pathOf(f.anchor);
      site.where = path.isEmpty() ? op : QStringLiteral("%1 (%2)").arg(path, op);
    }
    for (const auto* n : f.nodes)
      if (const auto id = idOf(n); id != model::kNoNode) site.nodes.push_back(id);
    sites.push_back(site);
  }
  return sites;
}

}  // namespace

QStringList passNames() {
  QStringList names;
  for (const auto& p : libtorchPasses()) names << p.name;
  return names;
}

bool isPassName(const QString& name) { return findNamed(libtorchPasses(), name) != nullptr; }

int opCount(const model::Revision& revision) { return countOps(*revision.graph()); }

model::Diagnostic SkippedMatch::diagnostic(const QString& rule) const {
  const QString at = op.isEmpty() ? QString() : QStringLiteral(" at %1").arg(op);
  return model::Diagnostic::warning(QStringLiteral("rewrite"),
                                    QStringLiteral("%1: skipped a match%2: %3").arg(rule, at, reason), {}, node);
}

model::Diagnostics ApplyResult::diagnostics() const {
  model::Diagnostics out;
  if (!error.isEmpty())
    out.push_back(model::Diagnostic::error(QStringLiteral("rewrite"), error,
                                           QStringLiteral("the model is unchanged"), errorNode));
  for (const auto& report : reports)
    for (const auto& skip : report.skipped) out.push_back(skip.diagnostic(report.name));
  return out;
}

ApplyResult applySteps(const model::Revision& base, const QVector<Step>& steps, model::NodeIdSource& ids,
                       const QString& name) {
  ApplyResult result;
  auto copy = base.cloneGraph();
  Carried carried;
  for (const auto& [node, id] : copy.ids) carried.byNode[node] = {id, node->kind()};
  result.opsBefore = countOps(*copy.graph);
  std::vector<c10::TypePtr> outputTypes;
  for (const auto* v : copy.graph->outputs()) outputTypes.push_back(v->type());
  // A rule's module glob matches the module itself: `layer1.0.relu` holds both of its calls.
  const PathOf pathOf = [&](const torch::jit::Node* n) {
    auto it = carried.byNode.find(n);
    return it != carried.byNode.end() ? base.placeOf(it->second.first).path() : model::modulePath(n);
  };
  QStringList names;
  for (const Step& step : steps) {
    StepReport report;
    report.name = step.pass.isEmpty() ? step.rule.id : step.pass;
    names << report.name;
    RewriteOutcome outcome;
    const torch::jit::Node* onlyAt = nullptr;
    if (step.onlyAt != model::kNoNode) {
      for (const auto& [node, entry] : carried.byNode)
        if (entry.first == step.onlyAt) onlyAt = node;
      if (!onlyAt) {
        result.error = QStringLiteral("%1: node %2 is not in the graph").arg(report.name).arg(step.onlyAt);
        result.errorNode = step.onlyAt;
        return result;
      }
    }
    try {
      outcome = runStep(step, copy.graph, false, onlyAt, report.kind, pathOf);
      if (outcome.error.isEmpty()) {
        copy.graph->lint();
        outcome.error = checkSchemas(*copy.graph);
      }
      // A model that runs but would not load again (an int returned where forward returns a
      // Tensor) is refused here, before any file is written.
      if (outcome.error.isEmpty()) outcome.error = checkValueTypes(*copy.graph, outputTypes);
    } catch (const c10::Error& e) {
      outcome.error = QString::fromStdString(e.what_without_backtrace());
    } catch (const std::exception& e) {
      outcome.error = QString::fromUtf8(e.what());
    }
    if (!outcome.error.isEmpty()) {
      result.error = QStringLiteral("%1: %2").arg(report.name, outcome.error);
      return result;
    }
    if (onlyAt && outcome.matches == 0) {
      result.error = QStringLiteral("%1: no match covers node %2").arg(report.name).arg(step.onlyAt);
      result.errorNode = step.onlyAt;
      return result;
    }
    report.matches = outcome.matches;
    // Looked up by address only: a rewritten node may already be freed.
    report.sites = sitesOf(outcome, [&](const torch::jit::Node* n) {
      auto it = carried.byNode.find(n);
      return it == carried.byNode.end() ? model::kNoNode : it->second.first;
    }, false, pathOf);
    // Skipped candidates were not rewritten, so their nodes are still alive and carried.
    for (const Skip& s : outcome.skipped) {
      auto it = carried.byNode.find(s.node);
      report.skipped.push_back(
          {s.reason, it == carried.byNode.end() ? model::kNoNode : it->second.first, s.op, s.notChosen});
    }
    carried.prune(*copy.graph);
    result.reports.push_back(report);
  }
  std::unordered_map<const torch::jit::Node*, model::NodeId> idMap;
  for (const auto& [node, entry] : carried.byNode) idMap[node] = entry.first;
  result.opsAfter = countOps(*copy.graph);
  result.revision = model::Revision::derived(base, copy.graph, idMap,
                                             name.isEmpty() ? names.join(QStringLiteral(" + ")) : name, ids);
  result.unchanged = result.revision->change().empty() && result.revision->irText() == base.irText();
  return result;
}

StepReport previewMatches(const model::Revision& revision, const Rule& rule, QString* error) {
  StepReport report;
  report.name = rule.id;
  auto graph = revision.graph();
  const PathOf pathOf = [&](const torch::jit::Node* n) { return revision.placeOf(revision.idOf(n)).path(); };
  const PathOf shownPathOf = [&](const torch::jit::Node* n) { return revision.modulePathOf(revision.idOf(n)); };
  RewriteOutcome outcome;
  try {
    outcome = runStep(Step::ofRule(rule), graph, true, nullptr, report.kind, pathOf);
  } catch (const std::exception& e) {
    outcome.error = QString::fromUtf8(e.what());
  }
  if (error) *error = outcome.error;
  report.matches = outcome.matches;
  for (const Skip& s : outcome.skipped) report.skipped.push_back({s.reason, revision.idOf(s.node), s.op, s.notChosen});
  report.sites = sitesOf(outcome, [&](const torch::jit::Node* n) { return revision.idOf(n); }, true, shownPathOf);
  return report;
}

}  // namespace graft::core::rewrite
