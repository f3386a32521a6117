#pragma once
// A revision's plain forward on any device. Frozen weights are prim::Constant tensors inside the
// graph, so moving the module does not move them: off the CPU the graph is copied once with every
// tensor constant placed on the device and run as a graph function. On the CPU it is the
// module's own forward. Internal to core (libtorch types).
#include "core/model/revision.h"

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>
#include <torch/csrc/jit/api/module.h>

#include <memory>
#include <vector>

namespace torch::jit { struct GraphFunction; }

namespace graft::core::run {

class DeviceForward {
 public:
  // Throws std::runtime_error when the revision cannot run there (an unfrozen model off the CPU).
  DeviceForward(const model::Revision& revision, c10::Device device);
  ~DeviceForward();
  // Inputs must already be on the device.
  c10::IValue operator()(const std::vector<c10::IValue>& inputs);
  c10::Device device() const { return device_; }

 private:
  torch::jit::Module module_;  // the revision's runnable, shared (not copied)
  c10::Device device_;
  std::shared_ptr<torch::jit::GraphFunction> function_;  // off the CPU only
};

}  // namespace graft::core::run
