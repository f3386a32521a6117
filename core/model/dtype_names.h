#pragma once
// Dtype names as people write them ("float32", "torch.float", "f32", "int64") to libtorch's
// scalar types: one table for input specs, rule conditions and edited constants.
#include <c10/core/ScalarType.h>

#include <QtCore/QString>
#include <optional>

namespace graft::core::model {

// Case-insensitive, with or without a "torch." prefix; nullopt for an unknown name.
std::optional<c10::ScalarType> dtypeFromName(const QString& name);

}  // namespace graft::core::model
