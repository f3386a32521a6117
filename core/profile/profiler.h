#pragma once
// Runs a revision repeatedly and times every op node with RecordFunction callbacks
// (the callbacks carry no timestamps, so we take our own). On CUDA the kernels come from the
// profiler's GPU activity (Kineto/CUPTI), attributed to the nodes that launched them.
#include "core/profile/profile.h"

#include <functional>
#include <vector>

namespace c10 { struct IValue; }
namespace graft::core::model { class Revision; }

namespace graft::core::profile {

struct ProfileOptions {
  int runs = 20;
  int warmup = 3;
  // One extra, untimed run records each top-level op's input shapes (the timed runs never do:
  // copying inputs per event would be most of the profiler's cost).
  bool recordShapes = true;
  // One extra, untimed node-by-node run records the bytes each node allocates and the peak.
  bool recordMemory = false;
  QString device = QStringLiteral("cpu");  // profileWithInputs places the inputs there ("cpu", "cuda")
  // Called after each run (done, total); return false to cancel.
  std::function<bool(int, int)> progress;
};

// Runs where the inputs are ("cpu" or "cuda"; frozen weights are copied there once). On CUDA
// every timed region ends with one device synchronisation; ops are not synchronised: a node's
// self time is its host time, and its kernels' device time is `NodeTiming::kernelMs`
// (core/profile/kernel_attribution). Only where the profiler cannot collect GPU activity does
// each top-level op wait for its kernels instead (`Profile::kernelNote` says so).
// Throws std::runtime_error with a readable message when the model fails to run.
Profile profileRevision(const model::Revision& revision, const std::vector<c10::IValue>& inputs,
                        const ProfileOptions& options);

}  // namespace graft::core::profile
