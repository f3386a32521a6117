#include "core/report/rewrite_report.h"

#include "core/model/plural.h"
#include <QtCore/QJsonArray>

namespace graft::core::report {

QJsonObject rulesReport(const rewrite::RuleLibrary& library) {
  QJsonArray rules, passes, problems;
  for (const auto& r : library.rules())
    rules.append(QJsonObject{{"id", r.id}, {"title", r.title}, {"description", r.description},
                             {"source", r.source}, {"kind", r.isComputed() ? "builtin" : "pattern"}});
  for (const auto& p : rewrite::passNames()) passes.append(QJsonObject{{"name", p}});
  for (const auto& e : library.problems()) problems.append(e.toString());
  return QJsonObject{{"rules", rules}, {"passes", passes}, {"problems", problems}};
}

QJsonObject rewriteReport(const rewrite::ApplyResult& result) {
  QJsonArray applied;
  for (const auto& s : result.reports) {
    QJsonArray skipped;
    for (const auto& k : s.skipped)
      skipped.append(QJsonObject{{"reason", k.reason}, {"node", qint64(k.node)}, {"op", k.op}});
    QJsonArray sites;
    for (const auto& m : s.sites) {
      QJsonArray nodes;
      for (auto id : m.nodes) nodes.append(qint64(id));
      QJsonObject site{{"anchor", qint64(m.anchor)}, {"nodes", nodes}};
      if (!m.where.isEmpty()) site.insert("where", m.where);
      sites.append(site);
    }
    applied.append(QJsonObject{{"rule", s.name}, {"kind", s.kind}, {"matches", s.matches}, {"skipped", skipped},
                               {"sites", sites}});
  }
  return QJsonObject{{"applied", applied}, {"ops_before", result.opsBefore}, {"ops_after", result.opsAfter}};
}

QString rewriteText(const rewrite::ApplyResult& result) {
  QString text;
  for (const auto& s : result.reports) {
    text += QStringLiteral("%1: %2, %3 skipped\n")
                .arg(s.name, model::counted(s.matches, QStringLiteral("match"), QStringLiteral("matches")))
                .arg(s.skipped.size());
    for (const auto& m : s.sites)
      if (!m.where.isEmpty()) text += QStringLiteral("  match at node %1: %2\n").arg(m.anchor).arg(m.where);
    QStringList skips;
    for (const auto& k : s.skipped) skips << QStringLiteral("  skipped %1: %2").arg(k.op, k.reason);
    for (const QString& line : model::countedRepeats(skips)) text += line + QLatin1Char('\n');
  }
  text += QStringLiteral("ops: %1 -> %2").arg(result.opsBefore).arg(result.opsAfter);
  return text;
}

}  // namespace graft::core::report
