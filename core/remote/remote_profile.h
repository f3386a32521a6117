#pragma once
// profile on a remote device (ssh://HOST/DEVICE): the host's agent times the model's own forward
// over the runs and, for a torch.export program, runs its graph node by node (torch.fx's
// Interpreter) timing each node, with torch.profiler's CUDA activity per node on a GPU. Nodes
// come back by their fx names and are matched to Graft's nodes by the names the program gave
// their values, so the figures land in the same Profile (and JSON keys) as a local profile.
// A TorchScript model gets whole-forward figures only.
#include "core/model/document.h"
#include "core/profile/profile.h"
#include "core/remote/remote_compare.h"

#include <optional>

namespace graft::core::remote {

struct RemoteProfileResult {
  std::optional<profile::Profile> profile;
  QString error;          // "HOST: cause" when it failed
  bool perNode = false;   // the host timed nodes (a .pt2)
  int unmatchedNodes = 0; // host nodes with no node of that name here (guards, asserts Graft folds)
  qint64 peakBytes = -1;  // on CUDA: the most the host's allocator held during the profile
  RemoteTraffic traffic;
};

// `threads` > 0 sets the host's intra-op threads. Never throws.
RemoteProfileResult profileRemote(const model::Document& document, const model::RevisionPtr& revision,
                                  const model::InputSet& inputs, int runs, int warmup, const RemoteDevice& device,
                                  int threads, const AgentConnection::Progress& progress,
                                  const std::atomic<bool>* cancel = nullptr);

struct RemoteModel;
// The same with the revision saved beforehand (remote_model.h savedForRemote): for a caller whose
// document may close while the job runs (the window), so the job holds no Document.
RemoteProfileResult profileRemote(const RemoteModel& model, const model::RevisionPtr& revision,
                                  const model::InputSet& inputs, int runs, int warmup, const RemoteDevice& device,
                                  int threads, const AgentConnection::Progress& progress,
                                  const std::atomic<bool>* cancel = nullptr);

}  // namespace graft::core::remote
