#include "core/remote/remote_shapes.h"

#include "core/model/job_guard.h"
#include "core/remote/agent_pool.h"
#include "core/remote/remote_model.h"
#include "core/report/shapes_report.h"
#include "core/run/outside_effects.h"

#include <QtCore/QElapsedTimer>

namespace graft::core::remote {

namespace {

RemoteShapesResult shapesGuarded(const model::Document& document, const model::RevisionPtr& revision,
                                 const model::InputSet& inputs, const RemoteDevice& device, int threads,
                                 const AgentConnection::Progress& progress, const std::atomic<bool>* cancel) {
  RemoteShapesResult out;
  out.traffic.host = device.host;
  if (document.format() != QLatin1String("pt2")) {
    out.error = QStringLiteral(
        "a host runs a model node by node only as a torch.export program (.pt2); a TorchScript model's shapes "
        "come from a run on this machine (leave out --device)");
    return out;
  }
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
  std::optional<run::RunResult> run;
  if (const auto model = savedForRemote(document, revision, &error); model && connection.open(hello, &error))
    run = runRemote(connection, *model, inputs, revision.get(), out.traffic, &error, /*typesOnly=*/true);
  out.traffic.record(connection, clock);
  if (!run) {
    out.error = error;
    return out;
  }
  out.report = report::shapesOfRun(*revision, inputs, *run);
  out.report.insert(QStringLiteral("device"), out.traffic.deviceLabel);
  return out;
}

}  // namespace

RemoteShapesResult shapesRemote(const model::Document& document, const model::RevisionPtr& revision,
                                const model::InputSet& inputs, const RemoteDevice& device, int threads,
                                const AgentConnection::Progress& progress, const std::atomic<bool>* cancel) {
  return model::guarded([&] { return shapesGuarded(document, revision, inputs, device, threads, progress, cancel); },
                        [&](const QString& why) {
                          RemoteShapesResult failed;
                          failed.traffic.host = device.host;
                          failed.error = QStringLiteral("the remote shapes run failed: %1").arg(why);
                          return failed;
                        });
}

}  // namespace graft::core::remote
