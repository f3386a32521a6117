#pragma once
// The export schema's enums (torch/_export/serde/schema.py; the values of
// torch/csrc/utils/generated_serialization_types.h) and c10's, both ways: one table each.
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include <QtCore/QJsonValue>
#include <QtCore/QString>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace graft::core::io::pt2 {

// The archive constants (torch/csrc/export/pt2_archive_constants.h) are string_views.
inline QString str(std::string_view v) { return QString::fromLatin1(v.data(), static_cast<qsizetype>(v.size())); }

std::optional<c10::ScalarType> scalarTypeOf(int schemaValue);
int schemaValueOf(c10::ScalarType type);  // 0 (UNKNOWN) where the schema has none

c10::MemoryFormat memoryFormatOf(int schemaValue);
int schemaValueOf(c10::MemoryFormat format);

c10::Layout layoutOf(int schemaValue);
int schemaValueOf(c10::Layout layout);

// Floats as the schema's JSON spells them: numbers, and "Infinity", "-Infinity", "NaN" for what
// JSON cannot (attention masks are built from -inf). nullopt: neither.
QJsonValue floatToJson(double value);
std::optional<double> floatFromJson(const QJsonValue& value);

// The program's definition among an archive's records: the first models/<name>.json; empty
// when there is none.
QString modelRecordOf(const std::vector<std::string>& records);

}  // namespace graft::core::io::pt2
