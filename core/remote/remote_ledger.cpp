#include "core/remote/remote_ledger.h"

#include "core/model/job_guard.h"
#include "core/remote/remote_model.h"
#include "core/remote/remote_profile.h"

#include <algorithm>
#include <cmath>

namespace graft::core::remote {

namespace {

jobs::LedgerEntry check(const model::RevisionPtr& original, const RemoteModel& model,
                        const model::RevisionPtr& revision, const model::InputSet& inputs,
                        const jobs::LedgerOptions& options, const RemoteDevice& device,
                        const AgentConnection::Progress& progress) {
  jobs::LedgerEntry entry;
  run::CompareOptions compare;
  compare.tol = {options.atol, options.rtol, options.elementwise};
  compare.cancel = options.cancel;
  compare.deviceB = c10::Device(device.device.toStdString());  // the rounding model allows for the host's device
  const auto compared = compareWithRemoteB(original, model, revision, inputs, compare, device, 0, progress);
  if (!compared.compare.ok) {
    entry.error = compared.compare.error;
    return entry;
  }
  entry.pass = compared.compare.equal;
  for (const auto& o : compared.compare.outputs)
    entry.maxAbs = std::max(entry.maxAbs, std::isnan(o.maxAbs) ? INFINITY : o.maxAbs);
  const auto timed = profileRemote(model, revision, inputs, options.runs, 1, device, 0, progress, options.cancel);
  if (!timed.profile) {
    entry.error = timed.error;
    return entry;
  }
  entry.runs = int(timed.profile->forwardMs.size());
  entry.medianMs = timed.profile->forward.median;
  entry.peakBytes = timed.peakBytes;
  entry.ok = true;
  return entry;
}

}  // namespace

jobs::LedgerEntry checkRevisionRemote(const model::RevisionPtr& original, const RemoteModel& model,
                                      const model::RevisionPtr& revision, const model::InputSet& inputs,
                                      const jobs::LedgerOptions& options, const RemoteDevice& device,
                                      const AgentConnection::Progress& progress) {
  return model::guarded([&] { return check(original, model, revision, inputs, options, device, progress); },
                        [&](const QString& why) {
                          jobs::LedgerEntry failed;
                          failed.error = QStringLiteral("%1: the check failed: %2").arg(device.host, why);
                          return failed;
                        });
}

}  // namespace graft::core::remote
