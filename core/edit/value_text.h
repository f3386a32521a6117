#pragma once
// Parsing a constant's new value from the text a user typed, guided by the argument's type.
#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>

#include <QtCore/QString>
#include <optional>

namespace graft::core::edit {

// "3", "0.5", "True", "[2, 2]", "'tanh'" or tanh (for str), "float16"/"torch.float16" (dtype
// arguments are ints), "None" (optional arguments). On failure returns nullopt and sets `error`.
std::optional<c10::IValue> parseValueText(const QString& text, const c10::TypePtr& type, QString* error);

}  // namespace graft::core::edit
