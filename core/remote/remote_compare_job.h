#pragma once
// The window's remote compare: a CompareRequest (revisions, inputs, settings) with B run on a
// host through remote_compare.h, its answer as the same CompareSummary a local run gives, so
// the Compare dock's table, verdict and canvas marks need nothing new. No libtorch types here.
#include "core/remote/agent_connection.h"
#include "core/remote/remote_device.h"
#include "core/run/compare_job.h"

#include <QtCore/QString>
#include <atomic>
#include <memory>

namespace graft::core::remote {

struct RemoteModel;

struct RemoteCompareSummary {
  run::CompareSummary summary;  // error "B: HOST: cause" when the remote side failed
  QString deviceLabel;          // "gpu-box:cuda:0, NVIDIA H100 80GB HBM3, torch 2.11.0+cu130"; empty before hello
  QString traffic;              // "gpu-box: sent 44.8 MB, received 4.1 KB, 4 round trips, 2.1 s (model sent)"
};

// Why `request` cannot run with B on a host in this version, worded for the window's settings
// (autocast, "compare every node" of a TorchScript B), or empty. `programB`: B is a .pt2.
QString remoteRequestRefusal(const run::CompareRequest& request, bool programB);

// Runs `request` (blocking: call it from a worker thread) with B on `device`; `request.deviceB`
// is ignored (the host's device is B's). `modelB` is revision B as savedForRemote made it, so the
// job holds no Document. `threads` > 0 sets the host's intra-op threads. Never throws.
RemoteCompareSummary runRemoteCompare(const run::CompareRequest& request, std::shared_ptr<const RemoteModel> modelB,
                                      const RemoteDevice& device, int threads,
                                      const AgentConnection::Progress& progress, const std::atomic<bool>* cancel);

}  // namespace graft::core::remote
