#pragma once
// Runs a revision repeatedly and times every op node with RecordFunction callbacks
// (Debian's libtorch has no kineto; the callbacks carry no timestamps, so we take our own).
#include "core/profile/profile.h"

#include <functional>
#include <vector>

namespace c10 { struct IValue; }
namespace graft::core::model { class Revision; }

namespace graft::core::profile {

struct ProfileOptions {
  int runs = 20;
  int warmup = 3;
  // Called after each run (done, total); return false to cancel.
  std::function<bool(int, int)> progress;
};

// Inputs must already be on the device the revision runs on ("cpu" or "cuda"); on CUDA every
// timed region ends with a device synchronisation.
// Throws std::runtime_error with a readable message when the model fails to run.
Profile profileRevision(const model::Revision& revision, const std::vector<c10::IValue>& inputs,
                        const ProfileOptions& options);

}  // namespace graft::core::profile
