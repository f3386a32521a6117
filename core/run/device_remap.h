#pragma once
// Any program on any device. A torch.export program bakes in the device it was exported on: the
// device arguments of arange/full/zeros/empty/to/_to_copy, `_assert_tensor_metadata`'s device,
// its tensor metadata; a TorchScript archive traced on a GPU holds `cuda:0` constants the same
// way. A run on device D rewrites, for that run, every device constant to D: the semantics of
// torch.export's `move_to_device_pass` (stock `ep.module().to("cuda")` fails instead,
// pytorch/pytorch#121761). The revision itself is never changed.
// Internal to core (libtorch types).
#include "core/model/revision.h"

#include <ATen/core/ivalue.h>
#include <c10/core/Device.h>

#include <QtCore/QString>
#include <optional>

namespace torch::jit {
struct Block;
struct Graph;
}  // namespace torch::jit

namespace graft::core::run {

// The device the program was made for: its first device constant, else the device its tensor
// inputs were recorded on; nullopt when nothing says.
std::optional<c10::Device> programDevice(const torch::jit::Graph& graph);

// Whether the graph holds a device constant other than `device`.
bool holdsOtherDevice(const torch::jit::Block& block, c10::Device device);

// Rewrites every device constant of `block` (nested blocks included) to `device`, in place, on a
// graph the caller owns (a copy). Returns how many were rewritten.
int remapDevices(torch::jit::Block* block, c10::Device device);

// A value as a run on `device` sees it: a device becomes `device`, anything else is itself.
c10::IValue onRunDevice(const c10::IValue& value, c10::Device device);

// Whether `a` and `b` name the same device ("cuda" and "cuda:0" do: an unindexed device is the
// current one).
bool sameDevice(c10::Device a, c10::Device b);

// "program exported for cpu, run on cuda:0": the one line a run's report carries when the
// program was made for another device; empty when it was made for `device` (or nothing says).
QString deviceRemapNote(const model::Revision& revision, c10::Device device);

}  // namespace graft::core::run
