#include "core/remote/remote_compare.h"

#include "core/model/job_guard.h"
#include "core/remote/agent_pool.h"
#include "core/remote/fx_names.h"
#include "core/remote/remote_model.h"
#include "core/remote/wire_values.h"
#include "core/rewrite/program_dtype.h"
#include "core/run/outside_effects.h"

#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QHash>
#include <QtCore/QJsonArray>
#include <algorithm>
#include <functional>

namespace graft::core::remote {

QString RemoteTraffic::summary() const {
  return QStringLiteral("%1: sent %2, received %3, %4 round trips, %5 s%6")
      .arg(host, byteCount(bytesSent), byteCount(bytesReceived))
      .arg(roundTrips)
      .arg(seconds, 0, 'f', 2)
      .arg(!modelChecked ? QString()
           : modelSent   ? QStringLiteral(" (model sent)")
                         : QStringLiteral(" (model cached on the host)"));
}

void RemoteTraffic::record(const AgentConnection& connection, const QElapsedTimer& clock) {
  deviceLabel = connection.deviceLabel();
  bytesSent = connection.bytesSent();
  bytesReceived = connection.bytesReceived();
  roundTrips = connection.roundTrips();
  seconds = clock.elapsed() / 1000.0;
}

QJsonObject RemoteTraffic::toJson() const {
  return {{QStringLiteral("host"), host},
          {QStringLiteral("device"), deviceLabel},
          {QStringLiteral("bytes_sent"), bytesSent},
          {QStringLiteral("bytes_received"), bytesReceived},
          {QStringLiteral("round_trips"), roundTrips},
          {QStringLiteral("model_sent"), modelSent},
          {QStringLiteral("seconds"), seconds}};
}

QString remoteCompareRefusal(const run::CompareOptions& options, bool programB) {
  if (options.perNode && !programB)
    return QStringLiteral(
        "--per-node with a remote B needs B as a torch.export program (.pt2): the host runs a TorchScript B whole");
  if (options.precisionB.autocast)
    return QStringLiteral("--autocast with a remote B is not supported yet: Graft's autocast is a node-by-node "
                          "stand-in that runs here; give --dtype-b alone (B as model.half() makes it)");
  if (options.precisionB.dtype && options.precisionB.casts == run::Casts::AsWritten)
    return QStringLiteral("--casts as-written needs B on this machine (the host runs B as model.half() makes it, "
                          "--casts follow)");
  if (options.tf32 == run::Tf32::Emulate) return QStringLiteral("--tf32 emulate needs B on this machine");
  return {};
}

namespace {

// B's node records from the host's values by fx name, as Executor records them, in graph order:
// a node's record is the value of the fx node one of its outputs is named after (a tuple's items
// by their getitems' names); a node without outputs gets an empty record.
std::vector<run::NodeRecord> nodeRecords(const model::Revision& revision,
                                         const QHash<QString, std::shared_ptr<std::vector<c10::IValue>>>& values) {
  std::vector<run::NodeRecord> records;
  for (torch::jit::Node* n : revision.graph()->nodes()) {
    if (n->kind().is_prim()) continue;
    std::shared_ptr<std::vector<c10::IValue>> found;
    for (const torch::jit::Value* v : n->outputs())
      if (v->hasDebugName() && !found) found = values.value(QString::fromStdString(v->debugName()));
    if (!found && n->outputs().size() > 0) continue;
    run::NodeRecord r;
    r.id = revision.idOf(n);
    r.op = QString::fromLatin1(n->kind().toQualString());
    r.modulePath = revision.modulePathOf(r.id);
    if (found) r.outputs = *found;
    records.push_back(std::move(r));
  }
  return records;
}

}  // namespace

std::optional<run::RunResult> runRemote(AgentConnection& connection, const RemoteModel& model,
                                        const model::InputSet& inputs, const model::Revision* nodesOf,
                                        RemoteTraffic& traffic, QString* error, bool typesOnly) {
  const qint64 before = connection.bytesSent();
  if (!traffic.modelChecked) {
    if (!sendModel(connection, model, error)) return std::nullopt;
    traffic.modelChecked = true;
    traffic.modelSent = connection.bytesSent() - before > model.bytes.size();
  }
  QByteArray payload;
  const auto trees = encodeValues(inputs.values, payload, error);
  if (!trees) return std::nullopt;
  const QJsonObject ask{{QStringLiteral("op"), nodesOf ? QStringLiteral("run_nodes") : QStringLiteral("run")},
                        {QStringLiteral("sha256"), model.sha256},
                        {QStringLiteral("format"), model.format},
                        {QStringLiteral("types_only"), typesOnly},
                        {QStringLiteral("inputs"), *trees}};
  const QString kept = typesOnly ? QStringLiteral("every node's shapes") : QStringLiteral("every node's values");
  connection.say(nodesOf
                     ? QStringLiteral("running node by node on %1, keeping %2").arg(connection.device().device, kept)
                     : QStringLiteral("running on %1").arg(connection.device().device));
  const auto reply = connection.request(ask, payload, QStringLiteral("the run"), error);
  if (!reply) return std::nullopt;
  const QString host = connection.device().host + QStringLiteral(": ");
  run::RunResult result;
  auto outputs = decodeValues(reply->header.value(QStringLiteral("outputs")).toArray(), reply->payload, error);
  if (!outputs) {
    *error = host + *error;
    return std::nullopt;
  }
  result.outputs = std::move(*outputs);
  if (nodesOf) {
    QHash<QString, std::shared_ptr<std::vector<c10::IValue>>> values;
    for (const auto item : reply->header.value(QStringLiteral("nodes")).toArray()) {
      const QJsonObject node = item.toObject();
      auto v = decodeValues(node.value(QStringLiteral("values")).toArray(), reply->payload, error);
      if (!v) {
        *error = host + *error;
        return std::nullopt;
      }
      const auto shared = std::make_shared<std::vector<c10::IValue>>(std::move(*v));
      values.insert(node.value(QStringLiteral("name")).toString(), shared);
      for (const auto alias : node.value(QStringLiteral("aliases")).toArray()) values.insert(alias.toString(), shared);
    }
    result.nodes = nodeRecords(*nodesOf, values);
  }
  result.ok = true;
  return result;
}

namespace {

// As compare.cpp runs its reference: A on the CPU at float64.
run::RunOptions float64Reference(const run::CompareOptions& options, bool keepIntermediates) {
  run::RunOptions r;
  r.precision.dtype = c10::kDouble;
  r.instrumented = true;
  r.keepIntermediates = keepIntermediates;
  r.cancel = options.cancel;
  return r;
}

// A at its own precision with TF32 emulated: the measured TF32 rung, as compare.cpp runs it.
run::RunOptions tf32Measured(const run::CompareOptions& options, bool keepIntermediates) {
  run::RunOptions r = float64Reference(options, keepIntermediates);
  r.precision = options.precisionA;
  r.precision.tf32 = run::Tf32::Emulate;
  return r;
}

// The verdict's one line, worded as compare.cpp words it.
QString verdictReason(const run::CompareResult& r) {
  const run::TensorDiff outputs = run::worstOf(r.outputs);
  if (r.exact) return outputs.reason;
  QString why = outputs.reason;
  if (const run::NodeDiff* f = r.intermediateDivergence())
    why = QStringLiteral("outputs %1; intermediate %2 at %3 is not: %4")
              .arg(outputs.reason, f->opB, f->modulePath.isEmpty() ? QStringLiteral("<top>") : f->modulePath,
                   f->diff.reason);
  if (!r.roundingJudged && !r.referenceError.isEmpty())
    why += QStringLiteral(" (judged elementwise: no float64 reference, %1)").arg(r.referenceError);
  return why;
}

// B's model as it goes up (RemoteModel::revision is what the host runs for B): saved from its
// document here, or saved before the job began.
using ModelSource = std::function<std::optional<RemoteModel>(QString* error)>;

}  // namespace

model::RevisionPtr revisionForHost(const model::RevisionPtr& revB, const model::InputSet& inputs,
                                   const run::CompareOptions& options, QString* error) {
  if (!options.precisionB.dtype) return revB;
  model::NodeIdSource ids;
  for (model::NodeId id : revB->nodeIds()) ids.advanceTo(id);
  const auto floatingInput = [&](size_t i) {
    return i < inputs.values.size() && inputs.values[i].isTensor() && inputs.values[i].toTensor().is_floating_point();
  };
  auto converted = rewrite::programAtDtype(*revB, *options.precisionB.dtype, floatingInput, ids, error);
  if (!converted && error)
    *error = QStringLiteral("B at %1 on a host: %2").arg(options.precisionB.describe(), *error);
  return converted;
}

namespace {

RemoteCompareResult compareGuarded(const model::RevisionPtr& revA, const ModelSource& modelB, bool programB,
                                   const model::RevisionPtr& revB, const model::InputSet& inputs,
                                   const run::CompareOptions& options, const RemoteDevice& device, int threads,
                                   const AgentConnection::Progress& progress) {
  RemoteCompareResult out;
  out.traffic.host = device.host;
  run::CompareResult& result = out.compare;
  if (const QString why = remoteCompareRefusal(options, programB); !why.isEmpty()) {
    result.error = why;
    return out;
  }
  // The host runs only what this machine would: the same check as a local run (run/outside_effects.h).
  if (const QString refusal = run::untrustedRunRefusal(*revB); !refusal.isEmpty()) {
    result.error = QStringLiteral("B: ") + refusal;
    result.errorOnB = true;
    return out;
  }
  QElapsedTimer clock;
  clock.start();
  // The host's agent, already running, or started now: the host starts Python and torch while A runs here.
  AgentPool::Lease lease = sharedAgentPool().lease(device, progress, options.cancel);
  AgentConnection& connection = *lease;
  const auto finishTraffic = [&] { out.traffic.record(connection, clock); };
  const auto failA = [&](const run::RunResult& ra) {
    result.error = QStringLiteral("A: ") + ra.error.headline();
    result.errorNode = ra.error.node;
    finishTraffic();
    return out;
  };
  const auto failB = [&](const QString& error) {
    result.error = QStringLiteral("B: ") + error;
    result.errorOnB = true;
    finishTraffic();
    return out;
  };

  run::Executor ea(revA);
  run::RunOptions oa = run::sideRunOptions(options).first;
  run::RunResult ra = ea.run(inputs, oa);
  if (!ra.ok) return failA(ra);
  QString error;
  const auto model = modelB(&error);
  QJsonObject hello{{QStringLiteral("tf32"), run::tf32Name(options.tf32)}};
  if (threads > 0) hello.insert(QStringLiteral("threads"), threads);
  if (!model || !connection.open(hello, &error)) return failB(error);
  const model::RevisionPtr runB = model->revision ? model->revision : revB;
  const model::Revision* nodesOf = options.perNode ? runB.get() : nullptr;
  auto rb = runRemote(connection, *model, inputs, nodesOf, out.traffic, &error);
  if (!rb) return failB(error);

  // From here on as a local compare (compare.cpp's compareGuarded), without local errors: those
  // need B's device on this machine.
  result.outputs = run::compareOutputs(ra.outputs, rb->outputs, options.tol);
  result.exact =
      std::all_of(result.outputs.begin(), result.outputs.end(), [](const run::TensorDiff& d) { return d.exact; });
  const run::RoundingModel rounding = run::roundingModel(options, *revA, *revB);
  const bool measuredRung = std::any_of(rounding.ladderB.begin(), rounding.ladderB.end(),
                                        [](const run::Explanation& e) { return e.measured; });
  std::optional<run::RunResult> ref, measured;
  const auto runReference = [&](bool keepIntermediates) {
    ref.reset();
    measured.reset();
    run::RunResult r = ea.run(inputs, float64Reference(options, keepIntermediates));
    if (!r.ok) {
      result.referenceError = r.error.headline();
      return;
    }
    ref = std::move(r);
    if (!measuredRung) return;
    if (run::RunResult m = ea.run(inputs, tf32Measured(options, keepIntermediates)); m.ok) measured = std::move(m);
  };
  if (!options.tol.elementwise && !result.exact) runReference(options.perNode);
  if (ref) {
    result.outputs = run::compareOutputs(ra.outputs, rb->outputs, options.tol, &ref->outputs, &rounding,
                                         measured ? &measured->outputs : nullptr);
    result.roundingJudged = true;
  }
  result.equal =
      std::all_of(result.outputs.begin(), result.outputs.end(), [](const run::TensorDiff& d) { return d.allclose; });
  result.ok = true;
  // Intermediates: per node on request, or to find where differing outputs part (a program B).
  if (!options.perNode && (result.equal || !programB)) {
    result.reason = verdictReason(result);
    result.runA = std::make_shared<run::RunResult>(std::move(ra));
    result.runB = std::make_shared<run::RunResult>(std::move(*rb));
    finishTraffic();
    return out;
  }
  oa.instrumented = oa.keepIntermediates = true;
  ra = ea.run(inputs, oa);
  if (!ra.ok) return failA(ra);
  if (!options.perNode) {  // B's first run kept no values
    rb = runRemote(connection, *model, inputs, runB.get(), out.traffic, &error);
    if (!rb) return failB(error);
  }
  if (!options.tol.elementwise && (!ref || ref->nodes.empty())) runReference(true);
  const bool perNodeRounding = ref && !options.tol.elementwise;
  result.nodes =
      run::compareNodes(ra, *revA, *rb, *runB, options.matching, options.tol, options.lineageA.get(),
                        options.lineageB.get(), perNodeRounding ? &*ref : nullptr,
                        perNodeRounding ? &rounding : nullptr, perNodeRounding && measured ? &*measured : nullptr);
  result.reason = verdictReason(result);
  result.runA = std::make_shared<run::RunResult>(std::move(ra));
  result.runB = std::make_shared<run::RunResult>(std::move(*rb));
  finishTraffic();
  return out;
}

RemoteCompareResult failedWith(const RemoteDevice& device, const QString& why) {
  RemoteCompareResult failed;
  failed.traffic.host = device.host;
  failed.compare.error = QStringLiteral("the comparison failed: %1").arg(why);
  return failed;
}

}  // namespace

RemoteCompareResult compareWithRemoteB(const model::RevisionPtr& revA, const model::Document& docB,
                                       const model::RevisionPtr& revB, const model::InputSet& inputs,
                                       const run::CompareOptions& options, const RemoteDevice& device, int threads,
                                       const AgentConnection::Progress& progress) {
  const ModelSource saved = [&](QString* error) -> std::optional<RemoteModel> {
    const model::RevisionPtr runB = revisionForHost(revB, inputs, options, error);
    if (!runB) return std::nullopt;
    return savedForRemote(docB, runB, error);
  };
  return model::guarded(
      [&] {
        return compareGuarded(revA, saved, docB.format() == QLatin1String("pt2"), revB, inputs, options, device,
                              threads, progress);
      },
      [&](const QString& why) { return failedWith(device, why); });
}

RemoteCompareResult compareWithRemoteB(const model::RevisionPtr& revA, const RemoteModel& modelB,
                                       const model::RevisionPtr& revB, const model::InputSet& inputs,
                                       const run::CompareOptions& options, const RemoteDevice& device, int threads,
                                       const AgentConnection::Progress& progress) {
  const ModelSource ready = [&](QString*) { return std::optional<RemoteModel>(modelB); };
  return model::guarded(
      [&] {
        return compareGuarded(revA, ready, modelB.format == QLatin1String("pt2"), revB, inputs, options, device,
                              threads, progress);
      },
      [&](const QString& why) { return failedWith(device, why); });
}

}  // namespace graft::core::remote
