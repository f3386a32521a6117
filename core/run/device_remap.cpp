#include "core/run/device_remap.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/ir/constants.h>

namespace graft::core::run {

namespace {

using torch::jit::Block;
using torch::jit::Node;

bool isDeviceConstant(const Node* n) {
  return n->kind() == c10::prim::Constant && n->outputs().size() == 1 &&
         n->output()->type()->kind() == c10::TypeKind::DeviceObjType;
}

std::optional<c10::Device> firstDeviceConstant(const Block& block) {
  for (const Node* n : block.nodes()) {
    if (isDeviceConstant(n)) {
      if (auto v = torch::jit::toIValue(n->output()); v && v->isDevice()) return v->toDevice();
    }
    for (const Block* b : n->blocks())
      if (auto d = firstDeviceConstant(*b)) return d;
  }
  return std::nullopt;
}

QString deviceName(c10::Device d) { return QString::fromStdString(d.str()); }

}  // namespace

bool sameDevice(c10::Device a, c10::Device b) {
  if (a.type() != b.type()) return false;
  if (!a.has_index() || !b.has_index()) return true;
  return a.index() == b.index();
}

std::optional<c10::Device> programDevice(const torch::jit::Graph& graph) {
  if (auto d = firstDeviceConstant(*graph.block())) return d;
  for (size_t i = 1; i < graph.inputs().size(); ++i) {
    const auto t = graph.inputs()[i]->type()->cast<c10::TensorType>();
    if (t && t->device()) return *t->device();
  }
  return std::nullopt;
}

bool holdsOtherDevice(const torch::jit::Block& block, c10::Device device) {
  for (const Node* n : block.nodes()) {
    if (isDeviceConstant(n)) {
      auto v = torch::jit::toIValue(n->output());
      if (v && v->isDevice() && v->toDevice() != device) return true;
    }
    for (const Block* b : n->blocks())
      if (holdsOtherDevice(*b, device)) return true;
  }
  return false;
}

int remapDevices(torch::jit::Block* block, c10::Device device) {
  int count = 0;
  for (Node* n : block->nodes()) {
    for (Block* b : n->blocks()) count += remapDevices(b, device);
    if (!isDeviceConstant(n)) continue;
    auto v = torch::jit::toIValue(n->output());
    if (!v || !v->isDevice() || v->toDevice() == device) continue;
    n->s_(c10::attr::value, device.str());
    ++count;
  }
  return count;
}

c10::IValue onRunDevice(const c10::IValue& value, c10::Device device) {
  if (value.isDevice() && value.toDevice() != device) return c10::IValue(device);
  return value;
}

QString deviceRemapNote(const model::Revision& revision, c10::Device device) {
  const auto graph = revision.graph();
  if (!graph) return {};
  const auto made = programDevice(*graph);
  if (!made || sameDevice(*made, device)) return {};
  return QStringLiteral("program exported for %1, run on %2").arg(deviceName(*made), deviceName(device));
}

}  // namespace graft::core::run
