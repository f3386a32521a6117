#pragma once
// What a run does with its input values: forward's defaults added, moved to a device, described
// for messages. The inputs themselves are made by io/input_set.
#include "core/model/input_set.h"

#include <QtCore/QString>

namespace graft::core::model { class Revision; }

namespace graft::core::run {

using model::InputSet;
using model::InputsPtr;

// `inputs` followed by the defaults of forward's trailing arguments that were not given
// (torchvision's detection models take `targets=None`). Unchanged when nothing is missing or a
// missing argument has no default; the caller's count check then names what is missing.
std::vector<c10::IValue> withDefaults(const model::Revision& revision, std::vector<c10::IValue> inputs);

// A copy of `value` with its tensors (also inside tuples and tensor lists) on `device`.
c10::IValue toDevice(const c10::IValue& value, c10::Device device);

// "Tensor float32 [1, 3, 32, 32]", "(Tensor ..., Tensor ...)" — for messages and reports.
QString describe(const c10::IValue& value);

}  // namespace graft::core::run
