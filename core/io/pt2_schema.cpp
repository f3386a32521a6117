#include "core/io/pt2_schema.h"

#include <cmath>
#include <limits>

#include <torch/csrc/export/pt2_archive_constants.h>

#include <utility>

namespace graft::core::io::pt2 {

namespace {

constexpr std::pair<int, c10::ScalarType> kScalarTypes[] = {
    {1, c10::kByte},          {2, c10::kChar},          {3, c10::kShort},
    {4, c10::kInt},           {5, c10::kLong},          {6, c10::kHalf},
    {7, c10::kFloat},         {8, c10::kDouble},        {9, c10::kComplexHalf},
    {10, c10::kComplexFloat}, {11, c10::kComplexDouble}, {12, c10::kBool},
    {13, c10::kBFloat16},     {28, c10::kUInt16},       {29, c10::ScalarType::Float8_e4m3fn},
    {30, c10::ScalarType::Float8_e5m2}, {34, c10::kUInt32}, {35, c10::kUInt64},
};

constexpr std::pair<int, c10::MemoryFormat> kMemoryFormats[] = {
    {1, c10::MemoryFormat::Contiguous},
    {2, c10::MemoryFormat::ChannelsLast},
    {3, c10::MemoryFormat::ChannelsLast3d},
    {4, c10::MemoryFormat::Preserve},
};

constexpr std::pair<int, c10::Layout> kLayouts[] = {
    {1, c10::kSparse}, {2, c10::kSparseCsr}, {3, c10::kSparseCsc},
    {4, c10::kSparseBsr}, {5, c10::kSparseBsc}, {6, c10::kMkldnn}, {7, c10::kStrided},
};

template <typename T, size_t N>
std::optional<T> byValue(const std::pair<int, T> (&table)[N], int value) {
  for (const auto& [k, v] : table)
    if (k == value) return v;
  return std::nullopt;
}

template <typename T, size_t N>
int byType(const std::pair<int, T> (&table)[N], T type) {
  for (const auto& [k, v] : table)
    if (v == type) return k;
  return 0;
}

}  // namespace

std::optional<c10::ScalarType> scalarTypeOf(int schemaValue) { return byValue(kScalarTypes, schemaValue); }
int schemaValueOf(c10::ScalarType type) { return byType(kScalarTypes, type); }
c10::MemoryFormat memoryFormatOf(int schemaValue) {
  return byValue(kMemoryFormats, schemaValue).value_or(c10::MemoryFormat::Contiguous);
}
int schemaValueOf(c10::MemoryFormat format) { return byType(kMemoryFormats, format); }
c10::Layout layoutOf(int schemaValue) { return byValue(kLayouts, schemaValue).value_or(c10::kStrided); }
int schemaValueOf(c10::Layout layout) { return byType(kLayouts, layout); }

QString modelRecordOf(const std::vector<std::string>& records) {
  const QString dir = str(torch::_export::archive_spec::MODELS_DIR);
  for (const auto& r : records) {
    const QString name = QString::fromStdString(r);
    if (name.startsWith(dir) && name.endsWith(QLatin1String(".json"))) return name;
  }
  return {};
}

QJsonValue floatToJson(double value) {
  if (std::isnan(value)) return QStringLiteral("NaN");
  if (std::isinf(value)) return value > 0 ? QStringLiteral("Infinity") : QStringLiteral("-Infinity");
  return value;
}

std::optional<double> floatFromJson(const QJsonValue& value) {
  if (value.isDouble()) return value.toDouble();
  const QString text = value.toString();
  if (text == QLatin1String("Infinity")) return std::numeric_limits<double>::infinity();
  if (text == QLatin1String("-Infinity")) return -std::numeric_limits<double>::infinity();
  if (text == QLatin1String("NaN")) return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

}  // namespace graft::core::io::pt2
