#include "core/report/compare_report.h"

#include <QtCore/QJsonArray>
#include <cmath>

namespace graft::core::report {

namespace {
QJsonValue number(double v) { return std::isfinite(v) ? QJsonValue(v) : QJsonValue(QJsonValue::Null); }

QJsonObject diffJson(const run::TensorDiff& d) {
  QJsonObject o{{"max_abs", number(d.maxAbs)}, {"max_rel", number(d.maxRel)}, {"mismatched", double(d.mismatched)},
                {"numel", double(d.numel)}, {"allclose", d.allclose}, {"cosine", number(d.cosine)}};
  if (!d.note.isEmpty()) o["note"] = d.note;
  return o;
}

QJsonObject nodeJson(const run::NodeDiff& n) {
  QJsonObject o = diffJson(n.diff);
  o["node"] = double(n.nodeB);
  o["node_a"] = double(n.nodeA);
  o["op"] = n.opB;
  o["op_a"] = n.opA;
  o["module_path"] = n.modulePath;
  return o;
}
}  // namespace

QJsonObject compareReport(const run::CompareResult& r, const run::Tolerance& tol, bool perNode) {
  QJsonArray outputs;
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    QJsonObject o = diffJson(r.outputs[i]);
    o["index"] = int(i);
    outputs.append(o);
  }
  QJsonObject j{{"outputs", outputs}, {"equal", r.equal}, {"atol", tol.atol}, {"rtol", tol.rtol},
                {"first_divergence", QJsonValue(QJsonValue::Null)}};
  if (r.nodes) {
    if (r.nodes->firstDivergence) j["first_divergence"] = nodeJson(*r.nodes->firstDivergence);
    j["nodes_compared"] = int(r.nodes->nodes.size());
    auto unmatched = [](const std::vector<const run::NodeRecord*>& nodes) {
      QJsonArray a;
      for (const auto* n : nodes) a.append(QJsonObject{{"node", double(n->id)}, {"op", n->op}, {"module_path", n->modulePath}});
      return a;
    };
    j["unmatched_a"] = unmatched(r.nodes->unmatchedA);
    j["unmatched_b"] = unmatched(r.nodes->unmatchedB);
    if (perNode) {
      QJsonArray nodes;
      for (const auto& n : r.nodes->nodes) nodes.append(nodeJson(n));
      j["nodes"] = nodes;
    }
  }
  return j;
}

QString compareText(const run::CompareResult& r, const run::Tolerance& tol) {
  QStringList lines;
  lines << QStringLiteral("%1 (atol %2, rtol %3)").arg(r.equal ? QStringLiteral("EQUAL") : QStringLiteral("DIFFERENT")).arg(tol.atol).arg(tol.rtol);
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const auto& d = r.outputs[i];
    lines << QStringLiteral("output %1: %2  max_abs %3  max_rel %4  mismatched %5/%6  cosine %7%8")
                 .arg(i).arg(d.allclose ? QStringLiteral("ok  ") : QStringLiteral("FAIL"))
                 .arg(d.maxAbs, 0, 'g', 4).arg(d.maxRel, 0, 'g', 4).arg(d.mismatched).arg(d.numel).arg(d.cosine, 0, 'f', 6)
                 .arg(d.note.isEmpty() ? QString() : QStringLiteral("  (") + d.note + QLatin1Char(')'));
  }
  if (r.nodes && r.nodes->firstDivergence) {
    const auto& f = *r.nodes->firstDivergence;
    lines << QStringLiteral("first divergence: node %1 %2%3 at %4, max_abs %5")
                 .arg(f.nodeB).arg(f.opB, f.opA != f.opB ? QStringLiteral(" (was ") + f.opA + QLatin1Char(')') : QString(),
                                   f.modulePath.isEmpty() ? QStringLiteral("<top>") : f.modulePath)
                 .arg(f.diff.maxAbs, 0, 'g', 4);
  }
  if (r.nodes && (!r.nodes->unmatchedA.empty() || !r.nodes->unmatchedB.empty()))
    lines << QStringLiteral("unmatched nodes: %1 in A, %2 in B").arg(r.nodes->unmatchedA.size()).arg(r.nodes->unmatchedB.size());
  return lines.join(QLatin1Char('\n'));
}

}  // namespace graft::core::report
