#include "core/report/compare_report.h"

#include "core/run/culprit.h"

#include <QtCore/QJsonArray>
#include <cmath>

namespace graft::core::report {

namespace {
QJsonValue number(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null); }

}  // namespace

QJsonObject tensorDiffJson(const run::TensorDiff& d) {
  QJsonObject o{{"max_abs", number(d.maxAbs)}, {"max_rel", number(d.maxRel)}, {"mismatched", double(d.mismatched)},
                {"numel", double(d.numel)}, {"allclose", d.allclose}, {"cosine", number(d.cosine)},
                {"sqnr_db", number(d.sqnrDb)}};
  if (!d.note.isEmpty()) o["note"] = d.note;
  o["exact"] = d.exact;
  o["reason"] = d.reason;
  o["non_finite_mismatched"] = double(d.nonFinite);
  o["nan_both"] = double(d.nanBoth);
  o["integer"] = d.integer;
  o["error_ratio"] = number(d.errorRatio);
  return o;
}

namespace {

QJsonObject nodeJson(const run::NodeDiff& n) {
  QJsonObject o = tensorDiffJson(n.diff);
  o["node"] = double(n.nodeB);
  o["node_a"] = double(n.nodeA);
  o["op"] = n.opB;
  o["op_a"] = n.opA;
  o["module_path"] = n.modulePath;
  o["change"] = n.change ? QJsonValue(n.change) : QJsonValue(QJsonValue::Null);
  o["integer_mismatched"] = double(n.integerMismatched);
  if (n.writtenLater) o["written_later"] = true;
  if (n.local) {
    o["local_max_abs"] = number(n.local->maxAbs);
    o["local_max_rel"] = number(n.local->maxRel);
    o["local_scaled"] = number(run::scaledLocalError(n));
    o["local_sqnr_db"] = number(n.local->sqnrDb);
    if (!n.local->note.isEmpty()) o["local_note"] = n.local->note;
  }
  return o;
}

// exact, within_rounding, within_tolerance (the user's --atol/--rtol) or different.
QString agreementName(const run::CompareResult& r) {
  switch (r.agreement()) {
    case run::CompareResult::Agreement::Exact: return QStringLiteral("exact");
    case run::CompareResult::Agreement::WithinRounding: return QStringLiteral("within_rounding");
    case run::CompareResult::Agreement::WithinTolerance: return QStringLiteral("within_tolerance");
    case run::CompareResult::Agreement::Different: break;
  }
  return QStringLiteral("different");
}

QString judgedName(const run::CompareResult& r, const run::Tolerance& tol) {
  if (r.exact) return QStringLiteral("bitwise");
  if (r.roundingJudged) return QStringLiteral("rounding");
  return tol.elementwise ? QStringLiteral("elementwise") : QStringLiteral("elementwise_fallback");
}

QString verdictName(run::CompareResult::Verdict v) {
  switch (v) {
    case run::CompareResult::Verdict::Equal: return QStringLiteral("equal");
    case run::CompareResult::Verdict::OutputsEqualIntermediateDiffers:
      return QStringLiteral("outputs_equal_intermediate_differs");
    case run::CompareResult::Verdict::OutputsDiffer: return QStringLiteral("outputs_differ");
  }
  return {};
}
}  // namespace

QJsonObject compareReport(const run::CompareResult& r, const run::Tolerance& tol, bool perNode,
                          const QStringList& outputNames) {
  QJsonArray outputs;
  const bool named = size_t(outputNames.size()) == r.outputs.size();
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    QJsonObject o = tensorDiffJson(r.outputs[i]);
    o["index"] = int(i);
    if (named) o["name"] = outputNames[int(i)];
    outputs.append(o);
  }
  QJsonObject j{{"outputs", outputs}, {"equal", r.equal}, {"atol", tol.atol}, {"rtol", tol.rtol},
                {"first_divergence", QJsonValue(QJsonValue::Null)}};
  j["verdict"] = verdictName(r.verdict());
  j["agreement"] = agreementName(r);
  j["verdict_reason"] = r.reason;
  j["exact"] = r.exact;
  j["judged"] = judgedName(r, tol);
  if (!r.referenceError.isEmpty()) j["reference_error"] = r.referenceError;
  j["intermediate_divergence"] = QJsonValue(QJsonValue::Null);
  if (const auto* f = r.firstDivergence()) j["first_divergence"] = nodeJson(*f);
  if (const auto* f = r.intermediateDivergence()) j["intermediate_divergence"] = nodeJson(*f);
  if (r.localErrors) {
    j["culprit"] = QJsonValue(QJsonValue::Null);
    if (r.culprit)
      j["culprit"] = QJsonObject{{"node", double(r.culprit->nodeB)}, {"node_a", double(r.culprit->nodeA)},
                                 {"op", r.culprit->op}, {"module_path", r.culprit->modulePath},
                                 {"local_max_abs", number(r.culprit->localMaxAbs)},
                                 {"local_scaled", number(r.culprit->localScaled)}};
  }
  if (r.nodes) {
    j["nodes_compared"] = int(r.nodes->nodes.size());
    auto unmatched = [](const std::vector<const run::NodeRecord*>& nodes) {
      QJsonArray a;
      for (const auto* n : nodes)
        a.append(QJsonObject{{"node", double(n->id)}, {"op", n->op}, {"module_path", n->modulePath}});
      return a;
    };
    j["unmatched_a"] = unmatched(r.nodes->unmatchedA);
    j["unmatched_b"] = unmatched(r.nodes->unmatchedB);
    QJsonArray changes;
    for (const auto& g : r.nodes->changes) {
      QJsonArray a, b;
      for (auto id : g.a) a.append(double(id));
      for (auto id : g.b) b.append(double(id));
      changes.append(QJsonObject{{"change", g.number},
                                 {"ops_a", g.opsA},
                                 {"ops_b", g.opsB},
                                 {"nodes_a", a},
                                 {"nodes_b", b},
                                 {"outputs_compared", int(g.exits.size())},
                                 {"outputs_unpaired", g.unpairedExits}});
    }
    j["changes"] = changes;
    QJsonArray skipped;
    for (const auto& n : r.nodes->notCompared)
      skipped.append(QJsonObject{{"node", double(n.node)},
                                 {"op", n.op},
                                 {"module_path", n.modulePath},
                                 {"side", n.onB ? "b" : "a"},
                                 {"change", n.change ? QJsonValue(n.change) : QJsonValue(QJsonValue::Null)},
                                 {"reason", n.reason}});
    j["not_compared"] = skipped;
    if (perNode) {
      QJsonArray nodes;
      for (const auto& n : r.nodes->nodes) nodes.append(nodeJson(n));
      j["nodes"] = nodes;
    }
  }
  return j;
}

QString compareText(const run::CompareResult& r, const run::Tolerance& tol, const QStringList& outputNames) {
  const bool named = size_t(outputNames.size()) == r.outputs.size();
  QStringList lines;
  const QString head = r.verdict() == run::CompareResult::Verdict::Equal
                           ? (r.exact ? QStringLiteral("EXACT") : QStringLiteral("EQUAL"))
                       : r.equal ? QStringLiteral("OUTPUTS EQUAL, INTERMEDIATE DIFFERS")
                                 : QStringLiteral("DIFFERENT");
  lines << QStringLiteral("%1: %2").arg(head, r.reason);
  if (tol.elementwise) lines << QStringLiteral("judged elementwise at atol %1, rtol %2").arg(tol.atol).arg(tol.rtol);
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const auto& d = r.outputs[i];
    lines << QStringLiteral("output %1: %2  max_abs %3  max_rel %4  mismatched %5/%6  cosine %7%8")
                 .arg(named ? outputNames[int(i)] : QString::number(i))
                 .arg(d.allclose ? QStringLiteral("ok  ") : QStringLiteral("FAIL"))
                 .arg(d.maxAbs, 0, 'g', 4)
                 .arg(d.maxRel, 0, 'g', 4)
                 .arg(d.mismatched)
                 .arg(d.numel)
                 .arg(d.cosine, 0, 'f', 6)
                 .arg(d.reason.isEmpty() ? QString() : QStringLiteral("  (") + d.reason + QLatin1Char(')'));
  }
  auto where = [](const run::NodeDiff& f) {
    const QString at = f.modulePath.isEmpty() ? QStringLiteral("<top>") : f.modulePath;
    const QString op = f.change ? QStringLiteral("%1 (output of change %2, was %3)").arg(f.opB).arg(f.change).arg(f.opA)
                       : f.opA != f.opB ? QStringLiteral("%1 (was %2)").arg(f.opB, f.opA) : f.opB;
    return QStringLiteral("node %1 %2 at %3, max_abs %4").arg(f.nodeB).arg(op, at).arg(f.diff.maxAbs, 0, 'g', 4);
  };
  if (const auto* f = r.firstDivergence()) lines << QStringLiteral("first divergence: ") + where(*f);
  if (const auto* f = r.intermediateDivergence())
    lines << QStringLiteral("outputs equal, but an intermediate is beyond tolerance: ") + where(*f);
  if (r.culprit)
    lines << QStringLiteral("culprit: node %1 %2 at %3 introduces the error itself (local max_abs %4, %5)")
                 .arg(r.culprit->nodeB)
                 .arg(r.culprit->op, r.culprit->modulePath.isEmpty() ? QStringLiteral("<top>") : r.culprit->modulePath)
                 .arg(r.culprit->localMaxAbs, 0, 'g', 4)
                 .arg(run::shareOfScale(r.culprit->localScaled));
  else if (r.localErrors && !r.equal)
    lines << QStringLiteral("culprit: none (no node adds more than rounding noise on its own; the error accumulates)");
  if (r.nodes && !r.nodes->changes.empty()) {
    const int n = int(r.nodes->changes.size());
    lines << QStringLiteral("%1 %2, compared where their values leave them:")
                 .arg(n)
                 .arg(n == 1 ? QStringLiteral("change") : QStringLiteral("changes"));
    for (const auto& g : r.nodes->changes) lines << QStringLiteral("  ") + g.label();
  }
  if (r.nodes && (!r.nodes->unmatchedA.empty() || !r.nodes->unmatchedB.empty()))
    lines << QStringLiteral("unmatched nodes: %1 in A, %2 in B")
                 .arg(r.nodes->unmatchedA.size())
                 .arg(r.nodes->unmatchedB.size());
  return lines.join(QLatin1Char('\n'));
}

}  // namespace graft::core::report
