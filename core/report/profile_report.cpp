#include "core/report/profile_report.h"

#include "core/profile/profile.h"

#include <QtCore/QJsonArray>
#include <QtCore/QHash>

#include <algorithm>
#include <set>

namespace graft::core::report {

namespace {

QJsonObject statsJson(const profile::Stats& s, const QString& prefix) {
  return {{prefix + QStringLiteral("median"), s.median}, {prefix + QStringLiteral("p10"), s.p10},
          {prefix + QStringLiteral("p90"), s.p90}, {prefix + QStringLiteral("iqr"), s.iqr()}};
}

// The memory timeline as counter events (a "memory" track in Perfetto and chrome://tracing) on
// the same nodes' events in the first measured run (the memory run is untimed, and run 0 is where
// its nodes ran in the same order): at a node's start the most allocated while it ran (its
// outputs and scratch, before it freed the scratch and the inputs it consumed), at its end the
// level it left. The track's highest value is peak_bytes.
QJsonArray memoryCounters(const profile::Profile& p) {
  QJsonArray out;
  if (!p.memoryRecorded) return out;
  QHash<model::NodeId, QVector<std::pair<qint64, qint64>>> spansOf;  // per node, its run-0 events in order
  qint64 firstStart = -1;
  for (const auto& e : p.events) {
    if (e.run != 0 || e.depth != 0) continue;
    if (firstStart < 0) firstStart = e.startNs;
    if (e.node != model::kNoNode) spansOf[e.node] << std::pair{e.startNs, e.startNs + e.durationNs};
  }
  if (firstStart < 0) return out;
  auto counter = [](qint64 ns, qint64 bytes) {
    return QJsonObject{{"name", "memory"}, {"ph", "C"}, {"ts", ns / 1000.0}, {"pid", 1},
                       {"args", QJsonObject{{"allocated_bytes", bytes}}}};
  };
  out.append(counter(firstStart, 0));
  // A node without a run-0 event hands its peak on to the next one placed, so that no peak is lost.
  QHash<model::NodeId, int> seen;
  qint64 pending = 0, lastEnd = firstStart, lastLevel = 0;
  for (const auto& point : p.memoryTimeline) {
    const auto spans = spansOf.value(point.node);
    const int k = seen[point.node]++;
    pending = std::max(pending, point.peakBytes);
    if (k >= spans.size()) continue;
    out.append(counter(spans[k].first, pending));
    out.append(counter(spans[k].second, point.allocatedBytes));
    pending = 0;
    lastEnd = spans[k].second;
    lastLevel = point.allocatedBytes;
  }
  if (pending > lastLevel) {
    out.append(counter(lastEnd, pending));
    out.append(counter(lastEnd, lastLevel));
  }
  return out;
}

}  // namespace

QJsonObject profileReport(const profile::Profile& p) {
  QJsonArray nodes;
  for (const auto& n : p.nodes) {
    QJsonObject o{{"node", QString::number(n.node)}, {"op", n.op}, {"module_path", n.modulePath},
                  {"calls", n.calls}, {"self_ms_median", n.selfMs.median}, {"self_ms_p10", n.selfMs.p10},
                  {"self_ms_p90", n.selfMs.p90}};
    if (p.memoryRecorded) o.insert("alloc_bytes", n.allocBytes);
    if (p.kernelsRecorded) {
      o.insert("kernels", n.kernels);
      o.insert("kernel_ms_median", n.kernelMs.median);
      o.insert("kernel_ms_p10", n.kernelMs.p10);
      o.insert("kernel_ms_p90", n.kernelMs.p90);
    }
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
                  // The profiled run's median over the plain forward's: 1.08 means 8% slower.
                  // `overhead` is that ratio too (kept for scripts written against it).
                  {"overhead_ratio", p.forward.median > 0 ? p.run.median / p.forward.median : 0.0},
                  {"overhead_percent", p.forward.median > 0 ? (p.run.median / p.forward.median - 1) * 100 : 0.0},
                  {"overhead", p.forward.median > 0 ? p.run.median / p.forward.median : 0.0},
                  {"run_ms", runs},
                  {"forward_ms", forward},
                  {"unmatched_events", p.unmatchedEvents},
                  {"unmatched", unmatched},
                  {"cancelled", p.cancelled},
                  {"nodes", nodes},
                  {"by_op", byOp}};
  if (p.memoryRecorded) {
    out.insert("peak_bytes", p.peakBytes);
    out.insert("memory_run_ms", p.memoryRunMs);
  }
  out.insert("kernels_recorded", p.kernelsRecorded);
  if (p.kernelsRecorded) {
    const int runCount = std::max<int>(1, p.runMs.size());
    out.insert("kernels_per_run", double(p.kernels.size()) / runCount);
    out.insert("unattributed_kernels", p.unattributedKernels);
    out.insert("kernel_ms_median", p.kernel.median);
    out.insert("kernel_ms_p10", p.kernel.p10);
    out.insert("kernel_ms_p90", p.kernel.p90);
  }
  if (!p.kernelNote.isEmpty()) out.insert("kernel_note", p.kernelNote);
  return out;
}

QJsonObject chromeTrace(const profile::Profile& p, const QString& modelName) {
  QJsonArray events;
  events.append(
      QJsonObject{{"name", "process_name"},
                  {"ph", "M"},
                  {"pid", 1},
                  {"args", QJsonObject{{"name", QStringLiteral("Graft: %1 (%2)").arg(modelName, p.device)}}}});
  std::set<quint64> lanes;  // ordered, so the thread_name events come out the same every time
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
  for (const QJsonValue& c : memoryCounters(p)) events.append(c);
  // Kernels: a GPU process under the CPU one, one row per stream.
  std::set<qint64> streams;
  for (const auto& k : p.kernels) {
    streams.insert(k.stream);
    QJsonObject args{{"run", k.run}, {"stream", k.stream}};
    if (k.node != model::kNoNode) {
      args.insert("node", QString::number(k.node));
      args.insert("module_path", modulePathOf.value(k.node));
    }
    if (k.launchNs >= 0) args.insert("launch_us", k.launchNs / 1000.0);
    events.append(QJsonObject{{"name", k.name}, {"cat", "kernel"}, {"ph", "X"}, {"ts", k.startNs / 1000.0},
                              {"dur", k.durationNs / 1000.0}, {"pid", 2}, {"tid", k.stream}, {"args", args}});
  }
  if (!p.kernels.isEmpty()) {
    events.append(QJsonObject{{"name", "process_name"}, {"ph", "M"}, {"pid", 2},
                              {"args", QJsonObject{{"name", QStringLiteral("GPU: %1").arg(p.device)}}}});
    events.append(
        QJsonObject{{"name", "process_sort_index"}, {"ph", "M"}, {"pid", 2}, {"args", QJsonObject{{"sort_index", 2}}}});
    events.append(
        QJsonObject{{"name", "process_sort_index"}, {"ph", "M"}, {"pid", 1}, {"args", QJsonObject{{"sort_index", 1}}}});
    for (qint64 stream : streams)
      events.append(QJsonObject{{"name", "thread_name"}, {"ph", "M"}, {"pid", 2}, {"tid", stream},
                                {"args", QJsonObject{{"name", QStringLiteral("stream %1").arg(stream)}}}});
  }
  for (quint64 lane : lanes)
    events.append(QJsonObject{{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", static_cast<qint64>(lane)},
                              {"args", QJsonObject{{"name", QStringLiteral("thread %1").arg(lane)}}}});
  return QJsonObject{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

}  // namespace graft::core::report
