#include "core/remote/remote_compare.h"

#include "core/model/job_guard.h"
#include "core/remote/remote_model.h"
#include "core/remote/wire_values.h"
#include "core/run/outside_effects.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <algorithm>

namespace graft::core::remote {

QString RemoteTraffic::summary() const {
  return QStringLiteral("%1: sent %2, received %3, %4 round trips, %5 s%6")
      .arg(host, byteCount(bytesSent), byteCount(bytesReceived))
      .arg(roundTrips)
      .arg(seconds, 0, 'f', 2)
      .arg(!modelChecked ? QString() : modelSent ? QStringLiteral(" (model sent)") : QStringLiteral(" (model cached on the host)"));
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

QString remoteCompareRefusal(const run::CompareOptions& options) {
  if (options.perNode) return QStringLiteral("--per-node with a remote B is not supported yet: compare outputs, or run B locally");
  if (options.precisionB.dtype || options.precisionB.autocast)
    return QStringLiteral("--dtype-b and --autocast with a remote B are not supported yet");
  if (options.tf32 == run::Tf32::Emulate) return QStringLiteral("--tf32 emulate needs B on this machine");
  return {};
}

std::optional<std::vector<c10::IValue>> runRemote(AgentConnection& connection, const RemoteModel& model,
                                                  const run::InputSet& inputs, RemoteTraffic& traffic, QString* error) {
  const qint64 before = connection.bytesSent();
  if (!sendModel(connection, model, error)) return std::nullopt;
  traffic.modelChecked = true;
  traffic.modelSent = connection.bytesSent() - before > model.bytes.size();
  QByteArray payload;
  const auto trees = encodeValues(inputs.values, payload, error);
  if (!trees) return std::nullopt;
  QJsonObject run{{QStringLiteral("op"), QStringLiteral("run")}, {QStringLiteral("sha256"), model.sha256},
                  {QStringLiteral("format"), model.format}, {QStringLiteral("inputs"), *trees}};
  connection.say(QStringLiteral("running on %1").arg(connection.device().device));
  const auto reply = connection.request(run, payload, QStringLiteral("the run"), error);
  if (!reply) return std::nullopt;
  auto outputs = decodeValues(reply->header.value(QStringLiteral("outputs")).toArray(), reply->payload, error);
  if (!outputs) *error = connection.device().host + QStringLiteral(": ") + *error;
  return outputs;
}

namespace {

// As compare.cpp runs its reference: A on the CPU at float64, outputs only.
run::RunOptions float64Reference(const run::CompareOptions& options) {
  run::RunOptions r;
  r.precision.dtype = c10::kDouble;
  r.instrumented = true;
  r.cancel = options.cancel;
  return r;
}

// A at its own precision with TF32 emulated: the measured TF32 rung, as compare.cpp runs it.
run::RunOptions tf32Measured(const run::CompareOptions& options) {
  run::RunOptions r = float64Reference(options);
  r.precision = options.precisionA;
  r.precision.tf32 = run::Tf32::Emulate;
  return r;
}

RemoteCompareResult compareGuarded(const model::RevisionPtr& revA, const model::Document& docB, const model::RevisionPtr& revB,
                                   const run::InputSet& inputs, const run::CompareOptions& options, const RemoteDevice& device,
                                   int threads, const AgentConnection::Progress& progress) {
  RemoteCompareResult out;
  out.traffic.host = device.host;
  run::CompareResult& result = out.compare;
  if (const QString why = remoteCompareRefusal(options); !why.isEmpty()) {
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
  AgentConnection connection(device, progress, options.cancel);
  connection.start();  // the host starts Python and torch while A runs here
  run::Executor ea(revA);
  const run::RunOptions oa = run::sideRunOptions(options).first;
  run::RunResult ra = ea.run(inputs, oa);
  if (!ra.ok) {
    result.error = QStringLiteral("A: ") + ra.error.headline();
    result.errorNode = ra.error.node;
    return out;
  }
  QJsonObject hello{{QStringLiteral("tf32"), run::tf32Name(options.tf32)}};
  if (threads > 0) hello.insert(QStringLiteral("threads"), threads);
  QString error;
  std::optional<std::vector<c10::IValue>> outputsB;
  const auto model = savedForRemote(docB, revB, &error);
  if (model && connection.open(hello, &error)) outputsB = runRemote(connection, *model, inputs, out.traffic, &error);
  out.traffic.deviceLabel = connection.deviceLabel();
  out.traffic.bytesSent = connection.bytesSent();
  out.traffic.bytesReceived = connection.bytesReceived();
  out.traffic.roundTrips = connection.roundTrips();
  out.traffic.seconds = clock.elapsed() / 1000.0;
  if (!outputsB) {
    result.error = QStringLiteral("B: ") + error;
    result.errorOnB = true;
    return out;
  }
  run::RunResult rb;
  rb.ok = true;
  rb.outputs = std::move(*outputsB);

  // From here on as a local compare of outputs (compare.cpp's compareGuarded).
  result.outputs = run::compareOutputs(ra.outputs, rb.outputs, options.tol);
  result.exact = std::all_of(result.outputs.begin(), result.outputs.end(), [](const run::TensorDiff& d) { return d.exact; });
  const run::RoundingModel rounding = run::roundingModel(options, *revA, *revB);
  if (!options.tol.elementwise && !result.exact) {
    run::RunResult ref = ea.run(inputs, float64Reference(options));
    if (ref.ok) {
      std::optional<run::RunResult> measured;
      if (std::any_of(rounding.ladderB.begin(), rounding.ladderB.end(), [](const run::Explanation& e) { return e.measured; }))
        if (run::RunResult m = ea.run(inputs, tf32Measured(options)); m.ok) measured = std::move(m);
      result.outputs = run::compareOutputs(ra.outputs, rb.outputs, options.tol, &ref.outputs, &rounding,
                                           measured ? &measured->outputs : nullptr);
      result.roundingJudged = true;
    } else {
      result.referenceError = ref.error.headline();
    }
  }
  result.equal = std::all_of(result.outputs.begin(), result.outputs.end(), [](const run::TensorDiff& d) { return d.allclose; });
  result.ok = true;
  result.reason = run::worstOf(result.outputs).reason;
  if (!result.exact && !result.roundingJudged && !result.referenceError.isEmpty())
    result.reason += QStringLiteral(" (judged elementwise: no float64 reference, %1)").arg(result.referenceError);
  result.runA = std::make_shared<run::RunResult>(std::move(ra));
  result.runB = std::make_shared<run::RunResult>(std::move(rb));
  return out;
}

}  // namespace

RemoteCompareResult compareWithRemoteB(const model::RevisionPtr& revA, const model::Document& docB,
                                       const model::RevisionPtr& revB, const run::InputSet& inputs,
                                       const run::CompareOptions& options, const RemoteDevice& device, int threads,
                                       const AgentConnection::Progress& progress) {
  return model::guarded([&] { return compareGuarded(revA, docB, revB, inputs, options, device, threads, progress); },
                        [&](const QString& why) {
                          RemoteCompareResult failed;
                          failed.traffic.host = device.host;
                          failed.compare.error = QStringLiteral("the comparison failed: %1").arg(why);
                          return failed;
                        });
}

}  // namespace graft::core::remote
