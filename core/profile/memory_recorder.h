#pragma once
// Memory of one forward run, node by node: c10's allocators report every allocation and free to
// the thread's profiler debug info (c10::reportMemoryUsageToProfiler: DefaultCPUAllocator and the
// CUDA caching allocator alike), so a reporter installed there for one run sees them all.
#include "core/profile/profile.h"

#include <QtCore/QHash>

#include <vector>

#include <c10/core/Device.h>

namespace c10 { struct IValue; }
namespace graft::core::model { class Revision; }

namespace graft::core::profile {

struct MemoryRecord {
  qint64 peakBytes = 0;                // above what was allocated when the run started
  QVector<MemoryPoint> timeline;       // per op node in run order: the level after it, the peak while it ran
  QHash<model::NodeId, qint64> allocBytes;  // per node, over all its calls
  double runMs = 0;                    // the recorded run's wall time
};

// Runs `revision` once node by node (run::Executor, instrumented, values freed after their last
// use as the interpreter does) on `inputs` (already on `device`) while recording allocations.
// Off the CPU one unrecorded run goes first, so copying the weights to the device is not charged
// to a node. Throws std::runtime_error with the failing node's message when the model fails.
MemoryRecord recordMemory(const model::Revision& revision, const std::vector<c10::IValue>& inputs, c10::Device device);

}  // namespace graft::core::profile
