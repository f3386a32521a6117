#include "core/run/device_forward.h"
#include "core/run/device_remap.h"
#include "core/run/outside_effects.h"
#include "core/run/unknown_ops.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/script.h>

#include <stdexcept>

namespace graft::core::run {

namespace {

void placeConstants(torch::jit::Block* block, c10::Device device) {
  for (torch::jit::Node* n : block->nodes()) {
    if (n->kind() == c10::prim::Constant && n->hasAttribute(c10::attr::value) &&
        n->kindOf(c10::attr::value) == torch::jit::AttributeKind::t)
      n->t_(c10::attr::value, n->t(c10::attr::value).to(device));
    for (auto* sub : n->blocks()) placeConstants(sub, device);
  }
}

}  // namespace

DeviceForward::DeviceForward(const model::Revision& revision, c10::Device device)
    : module_(revision.runnable()), device_(device) {
  if (const QString refusal = untrustedRunRefusal(revision); !refusal.isEmpty())
    throw std::runtime_error(refusal.toStdString());
  if (const QString refusal = unknownOperatorRefusal(revision); !refusal.isEmpty())
    throw std::runtime_error(refusal.toStdString());
  // A program made for another device (device constants such as arange's `device="cuda"`) runs
  // on a copy with them remapped (device_remap.h).
  const bool remap = holdsOtherDevice(*module_.get_method("forward").graph()->block(), device);
  if (device.is_cpu() && !remap) return;
  if (!device.is_cpu() && !revision.frozen())
    throw std::runtime_error("running off the CPU needs a frozen model: open it without --no-freeze");
  auto graph = module_.get_method("forward").graph()->copy();
  if (!device.is_cpu()) placeConstants(graph->block(), device);
  remapDevices(graph->block(), device);
  function_ = std::make_shared<torch::jit::GraphFunction>("graft_forward_on_device", graph, nullptr);
}

DeviceForward::~DeviceForward() = default;

c10::IValue DeviceForward::operator()(const std::vector<c10::IValue>& inputs) {
  if (!function_) return module_.forward(inputs);
  // The graph's self is the runnable module: a frozen graph reads nothing from it.
  torch::jit::Stack stack;
  stack.reserve(inputs.size() + 1);
  stack.emplace_back(module_._ivalue());
  stack.insert(stack.end(), inputs.begin(), inputs.end());
  function_->run(stack);
  return stack.front();
}

}  // namespace graft::core::run
