#include "core/profile/memory_recorder.h"

#include "core/model/revision.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/cuda.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace graft::core::profile {

namespace {

// Receives every allocation (positive size) and free (negative) made by the threads it is
// installed on. c10 calls it from inside the allocator: plain std containers only, reserved
// up front, so recording rarely allocates at all.
class AllocationCounter final : public c10::MemoryReportingInfoBase {
 public:
  AllocationCounter() { fresh_.reserve(1024); }

  bool memoryProfilingEnabled() const override { return true; }

  void reportMemoryUsage(void* ptr, int64_t size, size_t, size_t, c10::Device) override {
    std::lock_guard lock(mutex_);
    level_ += size;
    peak_ = std::max(peak_, level_);
    sincePeak_ = std::max(sincePeak_, level_);
    if (size > 0) {
      fresh_.push_back({ptr, size});
      return;
    }
    // A block freed by the node that allocated it was scratch: it counts in the peak only.
    auto it = std::find_if(fresh_.rbegin(), fresh_.rend(), [ptr](const Block& b) { return b.ptr == ptr; });
    if (it == fresh_.rend()) return;
    *it = fresh_.back();
    fresh_.pop_back();
  }

  // After each op node: the bytes it allocated and still holds, the level now and the highest
  // level since the op node before it returned (the allocation peak inside this node).
  MemoryPoint nodeDone(model::NodeId node, qint64* held) {
    std::lock_guard lock(mutex_);
    qint64 sum = 0;
    for (const Block& b : fresh_) sum += b.size;
    fresh_.clear();
    *held = sum;
    const MemoryPoint point{node, level_, sincePeak_};
    sincePeak_ = level_;
    return point;
  }

  // The highest level since the last op node returned (what the run's last steps allocated).
  qint64 sincePeak() const { return sincePeak_; }

  qint64 peak() const { return peak_; }

 private:
  struct Block {
    void* ptr;
    qint64 size;
  };
  std::mutex mutex_;  // intra-op workers may allocate too
  std::vector<Block> fresh_;  // allocated since the last node finished, not yet freed
  qint64 level_ = 0;
  qint64 peak_ = 0;
  qint64 sincePeak_ = 0;
};

}  // namespace

MemoryRecord recordMemory(const model::Revision& revision, const std::vector<c10::IValue>& inputs, c10::Device device) {
  // The executor lives only for this call: it may borrow the caller's revision.
  run::Executor executor(model::RevisionPtr(std::shared_ptr<void>(), &revision));
  const model::InputSet given{inputs, {}};
  run::RunOptions options;
  options.device = device;
  options.instrumented = true;
  auto check = [](const run::RunResult& r) {
    if (!r.ok) throw std::runtime_error(r.error.headline().toStdString());
  };
  // Off the CPU, the first run copies the weights to the device (kept by the executor).
  if (!device.is_cpu()) check(executor.run(given, options));

  MemoryRecord record;
  auto counter = std::make_shared<AllocationCounter>();
  options.onNode = [&](const run::NodeRecord& node) {
    qint64 held = 0;
    record.timeline.push_back(counter->nodeDone(node.id, &held));
    record.allocBytes[node.id] += held;
  };
  record.timeline.reserve(4096);
  {
    c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, counter);
    const auto start = std::chrono::steady_clock::now();
    run::RunResult result = executor.run(given, options);
    if (!device.is_cpu()) torch::cuda::synchronize();
    record.runMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    check(result);
    // What the steps after the last op node allocated (none allocate much) counts at that node, so
    // the timeline's highest point is the run's peak.
    if (!record.timeline.isEmpty())
      record.timeline.last().peakBytes = std::max(record.timeline.last().peakBytes, counter->sincePeak());
    // Freed while recording, so c10's CPU reporter forgets these blocks as well.
    result = run::RunResult();
  }
  record.peakBytes = counter->peak();
  return record;
}

}  // namespace graft::core::profile
