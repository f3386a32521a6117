#include "core/remote/remote_profile.h"

#include "core/model/job_guard.h"
#include "core/remote/agent_pool.h"
#include "core/remote/fx_names.h"
#include "core/remote/remote_model.h"
#include "core/remote/wire_values.h"
#include "core/run/outside_effects.h"

#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QHash>
#include <QtCore/QJsonArray>
#include <QtCore/QMap>
#include <algorithm>

namespace graft::core::remote {

namespace {

QVector<double> numbers(const QJsonValue& array) {
  QVector<double> out;
  for (const auto v : array.toArray()) out << v.toDouble();
  return out;
}

void fillNodes(const QJsonArray& hostNodes, const model::Revision& revision, int runs, profile::Profile& p,
               RemoteProfileResult& out) {
  const auto byName = nodesByFxName(revision);
  QMap<QString, int> kindIndex;
  QVector<QVector<double>> kindRuns;  // per op kind: per-run sums
  QVector<int> kindNodes;
  QVector<double> kernelPerRun(runs, 0.0);
  QMap<QString, int> unmatched;
  for (const auto item : hostNodes) {
    const QJsonObject h = item.toObject();
    const QVector<double> self = numbers(h.value(QStringLiteral("self_ms")));
    const QVector<double> kernel = numbers(h.value(QStringLiteral("kernel_ms")));
    torch::jit::Node* node = byName.value(h.value(QStringLiteral("name")).toString());
    if (!node) {
      unmatched[h.value(QStringLiteral("target")).toString()] += int(self.size());
      ++out.unmatchedNodes;
      continue;
    }
    profile::NodeTiming t;
    t.node = revision.idOf(node);
    t.op = QString::fromLatin1(node->kind().toQualString());
    t.modulePath = revision.modulePathOf(t.node);
    t.calls = 1;
    t.selfMs = profile::Stats::of(self);
    if (!kernel.isEmpty()) {
      t.kernels = 1;
      t.kernelMs = profile::Stats::of(kernel);
      for (int r = 0; r < std::min<int>(runs, kernel.size()); ++r) kernelPerRun[r] += kernel[r];
    }
    if (!kindIndex.contains(t.op)) {
      kindIndex.insert(t.op, kindRuns.size());
      kindRuns.push_back(QVector<double>(runs, 0.0));
      kindNodes.push_back(0);
    }
    const int k = kindIndex.value(t.op);
    ++kindNodes[k];
    for (int r = 0; r < std::min<int>(runs, self.size()); ++r) kindRuns[k][r] += self[r];
    p.nodes.push_back(std::move(t));
  }
  for (auto it = kindIndex.begin(); it != kindIndex.end(); ++it)
    p.byOp.push_back({it.key(), kindNodes[it.value()], profile::Stats::of(kindRuns[it.value()])});
  std::sort(p.byOp.begin(), p.byOp.end(),
            [](const auto& a, const auto& b) { return a.totalMs.median > b.totalMs.median; });
  for (auto it = unmatched.begin(); it != unmatched.end(); ++it) {
    p.unmatched.push_back({it.key(), it.value(),
                           QStringLiteral("a node of the host's program with no node of its name in Graft's graph")});
    p.unmatchedEvents += it.value();
  }
  if (p.kernelsRecorded) p.kernel = profile::Stats::of(kernelPerRun);
}

RemoteProfileResult failedProfile(const QString& host, const QString& why) {
  RemoteProfileResult failed;
  failed.traffic.host = host;
  failed.error = QStringLiteral("the remote profile failed: %1").arg(why);
  return failed;
}

// `given`: the revision saved beforehand; else it is saved from `document` while ssh connects.
RemoteProfileResult profileGuarded(const model::Document* document, const RemoteModel* given,
                                   const model::RevisionPtr& revision, const model::InputSet& inputs, int runs,
                                   int warmup, const RemoteDevice& device, int threads,
                                   const AgentConnection::Progress& progress, const std::atomic<bool>* cancel) {
  RemoteProfileResult out;
  out.traffic.host = device.host;
  if (const QString refusal = run::untrustedRunRefusal(*revision); !refusal.isEmpty()) {
    out.error = refusal;
    return out;
  }
  QElapsedTimer clock;
  clock.start();
  // The host's agent, already running, or started now: it comes up while the revision is saved here.
  AgentPool::Lease lease = sharedAgentPool().lease(device, progress, cancel);
  AgentConnection& connection = *lease;
  QJsonObject hello;
  if (threads > 0) hello.insert(QStringLiteral("threads"), threads);
  QString error;
  std::optional<AgentReply> reply;
  std::optional<RemoteModel> saved;
  const RemoteModel* model = given;
  if (!model && (saved = savedForRemote(*document, revision, &error))) model = &*saved;
  if (model && connection.open(hello, &error)) {
    const qint64 before = connection.bytesSent();
    if (sendModel(connection, *model, &error)) {
      out.traffic.modelChecked = true;
      out.traffic.modelSent = connection.bytesSent() - before > model->bytes.size();
      QByteArray payload;
      if (const auto trees = encodeValues(inputs.values, payload, &error)) {
        const QJsonObject ask{{QStringLiteral("op"), QStringLiteral("profile")},
                              {QStringLiteral("sha256"), model->sha256},
                              {QStringLiteral("format"), model->format},
                              {QStringLiteral("inputs"), *trees},
                              {QStringLiteral("runs"), runs},
                              {QStringLiteral("warmup"), warmup},
                              {QStringLiteral("per_node"), true}};
        connection.say(
            QStringLiteral("profiling on %1 (%2 runs, %3 warm-up)").arg(device.device).arg(runs).arg(warmup));
        reply = connection.request(ask, payload, QStringLiteral("the profile"), &error);
      }
    }
  }
  out.traffic.record(connection, clock);
  if (!reply) {
    out.error = error;
    return out;
  }
  const QJsonObject& h = reply->header;
  profile::Profile p;
  p.device = connection.deviceLabel();
  p.warmup = warmup;
  p.threads = connection.hello().value(QStringLiteral("threads")).toInt();
  p.runMs = numbers(h.value(QStringLiteral("run_ms")));
  p.forwardMs = numbers(h.value(QStringLiteral("forward_ms")));
  p.run = profile::Stats::of(p.runMs);
  p.forward = profile::Stats::of(p.forwardMs);
  out.perNode = h.value(QStringLiteral("per_node")).toBool();
  p.kernelsRecorded = h.value(QStringLiteral("kernels_recorded")).toBool();
  p.kernelNote = h.value(QStringLiteral("kernel_note")).toString();
  if (h.contains(QStringLiteral("peak_bytes"))) out.peakBytes = h.value(QStringLiteral("peak_bytes")).toInteger();
  fillNodes(h.value(QStringLiteral("nodes")).toArray(), *revision, int(p.runMs.size()), p, out);
  out.profile = std::move(p);
  return out;
}

}  // namespace

RemoteProfileResult profileRemote(const model::Document& document, const model::RevisionPtr& revision,
                                  const model::InputSet& inputs, int runs, int warmup, const RemoteDevice& device,
                                  int threads, const AgentConnection::Progress& progress,
                                  const std::atomic<bool>* cancel) {
  return model::guarded(
      [&] {
        return profileGuarded(&document, nullptr, revision, inputs, runs, warmup, device, threads, progress, cancel);
      },
      [&](const QString& why) { return failedProfile(device.host, why); });
}

RemoteProfileResult profileRemote(const RemoteModel& model, const model::RevisionPtr& revision,
                                  const model::InputSet& inputs, int runs, int warmup, const RemoteDevice& device,
                                  int threads, const AgentConnection::Progress& progress,
                                  const std::atomic<bool>* cancel) {
  return model::guarded(
      [&] {
        return profileGuarded(nullptr, &model, revision, inputs, runs, warmup, device, threads, progress, cancel);
      },
      [&](const QString& why) { return failedProfile(device.host, why); });
}

}  // namespace graft::core::remote
