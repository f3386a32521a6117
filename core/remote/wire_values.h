#pragma once
// Values on the agent's wire (python/graft/agent.py): a JSON tree per value whose tensors point
// into one raw payload ({"t": "tensor", "dtype": "float32", "shape": [...], "offset", "nbytes"};
// ints, floats, bools, none, tuples and lists). Tensors travel as their bytes, little-endian as
// in memory, never through pickle.
#include <ATen/core/ivalue.h>

#include <QtCore/QByteArray>
#include <QtCore/QJsonArray>
#include <QtCore/QString>
#include <optional>
#include <vector>

namespace graft::core::remote {

// Appends each value's tensor bytes to `payload` and returns the trees; nullopt with `error` for
// a value the wire cannot carry (a string, an object).
std::optional<QJsonArray> encodeValues(const std::vector<c10::IValue>& values, QByteArray& payload, QString* error);

// The values back, tensors on the CPU (a tree marked "meta", sent without its bytes, is a tensor
// on the meta device: dtype and shape only); nullopt with `error` for a tree that does not fit
// the payload.
std::optional<std::vector<c10::IValue>> decodeValues(const QJsonArray& trees, const QByteArray& payload,
                                                     QString* error);

}  // namespace graft::core::remote
