#include "core/report/profile_report.h"

#include "core/profile/profile.h"

#include <QtCore/QJsonArray>
#include <QtCore/QSet>

namespace graft::core::report {

namespace {

QJsonObject statsJson(const profile::Stats& s, const QString& prefix) {
  return {{prefix + QStringLiteral("median"), s.median}, {prefix + QStringLiteral("p10"), s.p10},
          {prefix + QStringLiteral("p90"), s.p90}, {prefix + QStringLiteral("iqr"), s.iqr()}};
}

}  // namespace

QJsonObject profileReport(const profile::Profile& p) {
  QJsonArray nodes;
  for (const auto& n : p.nodes) {
    QJsonObject o{{"node", QString::number(n.node)}, {"op", n.op}, {"module_path", n.modulePath},
                  {"calls", n.calls}, {"self_ms_median", n.selfMs.median}, {"self_ms_p10", n.selfMs.p10},
                  {"self_ms_p90", n.selfMs.p90}};
    nodes.append(o);
  }
  QJsonArray byOp;
  for (const auto& k : p.byOp)
    byOp.append(QJsonObject{{"op", k.op}, {"nodes", k.nodes}, {"total_ms_median", k.totalMs.median},
                            {"total_ms_p10", k.totalMs.p10}, {"total_ms_p90", k.totalMs.p90}});
  QJsonArray unmatched;
  for (const auto& u : p.unmatched)
    unmatched.append(QJsonObject{{"op", u.op}, {"events", u.events}, {"reason", u.reason}});
  QJsonArray runs, forward;
  for (double v : p.runMs) runs.append(v);
  for (double v : p.forwardMs) forward.append(v);
  QJsonObject out{{"runs", p.runMs.size()},
                  {"warmup", p.warmup},
                  {"threads", p.threads},
                  {"device", p.device},
                  {"median_ms", p.run.median},
                  {"p10_ms", p.run.p10},
                  {"p90_ms", p.run.p90},
                  {"iqr_ms", p.run.iqr()},
                  {"forward_median_ms", p.forward.median},
                  {"forward_p10_ms", p.forward.p10},
                  {"forward_p90_ms", p.forward.p90},
                  {"overhead", p.forward.median > 0 ? p.run.median / p.forward.median : 0.0},
                  {"run_ms", runs},
                  {"forward_ms", forward},
                  {"unmatched_events", p.unmatchedEvents},
                  {"unmatched", unmatched},
                  {"cancelled", p.cancelled},
                  {"nodes", nodes},
                  {"by_op", byOp}};
  return out;
}

QJsonObject chromeTrace(const profile::Profile& p, const QString& modelName) {
  QJsonArray events;
  events.append(QJsonObject{{"name", "process_name"}, {"ph", "M"}, {"pid", 1},
                            {"args", QJsonObject{{"name", QStringLiteral("Graft: %1 (%2)").arg(modelName, p.device)}}}});
  QSet<quint64> lanes;
  QHash<quint64, QString> modulePathOf;
  for (const auto& n : p.nodes) modulePathOf.insert(n.node, n.modulePath);
  for (const auto& e : p.events) {
    lanes.insert(e.thread);
    QJsonObject args{{"run", e.run}, {"depth", e.depth}};
    if (!e.shapes.isEmpty()) args.insert("shapes", e.shapes);
    if (e.node != model::kNoNode) {
      args.insert("node", QString::number(e.node));
      args.insert("module_path", modulePathOf.value(e.node));
    }
    events.append(QJsonObject{{"name", e.name}, {"cat", e.depth == 0 ? "node" : "op"}, {"ph", "X"},
                              {"ts", e.startNs / 1000.0}, {"dur", e.durationNs / 1000.0},
                              {"pid", 1}, {"tid", static_cast<qint64>(e.thread)}, {"args", args}});
  }
  for (quint64 lane : lanes)
    events.append(QJsonObject{{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", static_cast<qint64>(lane)},
                              {"args", QJsonObject{{"name", QStringLiteral("thread %1").arg(lane)}}}});
  return QJsonObject{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace graft::core::report
