#pragma once
// The inputs of a run: forward's positional arguments. Made by io/input_set (from specs, files
// and what a model records), read by every run.
#include <ATen/core/ivalue.h>

#include <QtCore/QStringList>
#include <memory>
#include <vector>

namespace graft::core::model {

struct InputSet {
  std::vector<c10::IValue> values;  // forward's positional arguments, without self
  QStringList descriptions;         // one per value, for messages: "Tensor float32 [1, 3, 32, 32]"
};
using InputsPtr = std::shared_ptr<const InputSet>;

}  // namespace graft::core::model
