#include "core/remote/remote_compare_job.h"

#include "core/model/job_guard.h"
#include "core/remote/remote_compare.h"
#include "core/remote/remote_model.h"

namespace graft::core::remote {

QString remoteRequestRefusal(const run::CompareRequest& request, bool programB) {
  if (request.castsAsWritten && !request.dtypeB.isEmpty())
    return QStringLiteral("\"casts as written\" on a remote device is not supported yet: untick it (the host runs B "
                          "at its precision as model.half() makes it)");
  if (request.autocastB)
    return QStringLiteral("autocast on a remote device is not supported yet: untick autocast (the host runs B at its "
                          "precision as model.half() makes it)");
  if (request.perNode && !programB)
    return QStringLiteral(
        "comparing every node with B on a remote device needs a torch.export program (.pt2): the host runs a "
        "TorchScript B whole; uncheck \"compare every node\" to compare the outputs");
  return {};
}

namespace {
RemoteCompareSummary compareGuarded(const run::CompareRequest& request, const RemoteModel& modelB,
                                    const RemoteDevice& device, int threads, const AgentConnection::Progress& progress,
                                    const std::atomic<bool>* cancel) {
  RemoteCompareSummary out;
  run::CompareSummary& s = out.summary;
  if (const QString why = remoteRequestRefusal(request, modelB.format == QLatin1String("pt2")); !why.isEmpty()) {
    s.error = why;
    return out;
  }
  // B's device in the rounding model is the host's (a CUDA host allows for TF32 as locally).
  run::CompareRequest asked = request;
  asked.deviceB = device.device;
  run::CompareOptions options;
  if (!run::optionsFor(asked, options, &s.error)) return out;
  options.cancel = cancel;
  RemoteCompareResult remote =
      compareWithRemoteB(request.a, modelB, request.b, *request.inputs, options, device, threads, progress);
  out.deviceLabel = remote.traffic.deviceLabel;
  out.traffic = remote.traffic.summary();
  if (cancel && cancel->load()) {
    s.cancelled = true;
    s.error = QStringLiteral("cancelled");
    return out;
  }
  s = run::summaryOf(std::make_shared<const run::CompareResult>(std::move(remote.compare)), asked, options);
  return out;
}
}  // namespace

RemoteCompareSummary runRemoteCompare(const run::CompareRequest& request, std::shared_ptr<const RemoteModel> modelB,
                                      const RemoteDevice& device, int threads,
                                      const AgentConnection::Progress& progress, const std::atomic<bool>* cancel) {
  if (!modelB) {
    RemoteCompareSummary none;
    none.summary.error = QStringLiteral("B: no saved model to send");
    return none;
  }
  return model::guarded([&] { return compareGuarded(request, *modelB, device, threads, progress, cancel); },
                        [&](const QString& why) {
                          RemoteCompareSummary failed;
                          failed.summary.error = QStringLiteral("the comparison failed: %1").arg(why);
                          return failed;
                        });
}

}  // namespace graft::core::remote
