#include "core/remote/remote_reduce.h"

#include "core/model/job_guard.h"
#include "core/remote/agent_pool.h"
#include "core/remote/remote_model.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonObject>

namespace graft::core::remote {

QString remoteReduceRefusal(const run::CompareOptions& options, const model::Document& document) {
  if (document.format() != QLatin1String("pt2"))
    return QStringLiteral("reduce with B on a host needs a torch.export program (.pt2): the host runs a TorchScript "
                          "model whole, and reduce needs its nodes one by one");
  return remoteCompareRefusal(options, true);
}

run::ReduceResult reduceOnHost(const model::Document& document, const model::RevisionPtr& revision,
                               const model::InputSet& inputs, const run::CompareOptions& options,
                               model::NodeIdSource& ids, const RemoteDevice& device, int threads,
                               const AgentConnection::Progress& progress, RemoteTraffic& traffic) {
  traffic.host = device.host;
  if (const QString why = remoteReduceRefusal(options, document); !why.isEmpty()) {
    run::ReduceResult refused;
    refused.error = why;
    return refused;
  }
  QElapsedTimer clock;
  clock.start();
  // The host's agent, already running, or started now: the host starts Python and torch while the reference runs here.
  AgentPool::Lease lease = sharedAgentPool().lease(device, progress, options.cancel);
  AgentConnection& connection = *lease;
  bool opened = false;
  const run::RunOnB onHost = [&](const model::RevisionPtr& r, const model::InputSet& in, bool nodeByNode,
                                 QString* error) -> std::optional<run::RunResult> {
    if (!opened) {
      QJsonObject hello{{QStringLiteral("tf32"), run::tf32Name(options.tf32)}};
      if (threads > 0) hello.insert(QStringLiteral("threads"), threads);
      if (!connection.open(hello, error)) return std::nullopt;
      opened = true;
    }
    const model::RevisionPtr runB = revisionForHost(r, in, options, error);
    if (!runB) return std::nullopt;
    const auto model =
        r == revision ? savedForRemote(document, runB, error) : savedProgramForRemote(runB, in.values, error);
    if (!model) return std::nullopt;
    RemoteTraffic perModel;  // each revision is asked for (and sent) once
    return runRemote(connection, *model, in, nodeByNode ? runB.get() : nullptr, perModel, error);
  };
  run::ReduceResult result = model::guarded(
      [&] { return run::reduceFailure(revision, inputs, options, ids, onHost); },
      [](const QString& why) {
        run::ReduceResult failed;
        failed.error = QStringLiteral("reduce failed: %1").arg(why);
        return failed;
      });
  traffic.record(connection, clock);
  return result;
}

}  // namespace graft::core::remote
