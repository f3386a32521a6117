#pragma once
// The export schema's enums (torch/_export/serde/schema.py; the values of
// torch/csrc/utils/generated_serialization_types.h) and c10's, both ways: one table each.
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include <optional>

namespace graft::core::io::pt2 {

std::optional<c10::ScalarType> scalarTypeOf(int schemaValue);
int schemaValueOf(c10::ScalarType type);  // 0 (UNKNOWN) where the schema has none

c10::MemoryFormat memoryFormatOf(int schemaValue);
int schemaValueOf(c10::MemoryFormat format);

c10::Layout layoutOf(int schemaValue);
int schemaValueOf(c10::Layout layout);

}  // namespace graft::core::io::pt2
