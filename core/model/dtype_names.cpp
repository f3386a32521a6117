#include "core/model/dtype_names.h"

#include <map>

namespace graft::core::model {

std::optional<c10::ScalarType> dtypeFromName(const QString& name) {
  static const std::map<QString, c10::ScalarType> names = {
      {"float32", c10::kFloat},   {"float", c10::kFloat},        {"f32", c10::kFloat},
      {"float64", c10::kDouble},  {"double", c10::kDouble},      {"f64", c10::kDouble},
      {"float16", c10::kHalf},    {"half", c10::kHalf},          {"bfloat16", c10::kBFloat16},
      {"int64", c10::kLong},      {"long", c10::kLong},          {"int32", c10::kInt},
      {"int", c10::kInt},         {"int16", c10::kShort},        {"short", c10::kShort},
      {"int8", c10::kChar},       {"uint8", c10::kByte},         {"bool", c10::kBool},
      {"complex64", c10::kComplexFloat}, {"complex128", c10::kComplexDouble}};
  QString key = name.trimmed().toLower();
  if (key.startsWith(QLatin1String("torch."))) key = key.mid(6);
  auto it = names.find(key);
  if (it == names.end()) return std::nullopt;
  return it->second;
}

}  // namespace graft::core::model
