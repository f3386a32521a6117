#include "core/model/constant_value.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

namespace graft::core::model {

std::optional<c10::IValue> constantValue(const torch::jit::Value* value) {
  const torch::jit::Node* n = value->node();
  if (n->kind() == c10::prim::Constant) return torch::jit::toIValue(value);
  const bool list = n->kind() == c10::prim::ListConstruct, tuple = n->kind() == c10::prim::TupleConstruct;
  if (!list && !tuple) return std::nullopt;
  std::vector<c10::IValue> items;
  for (const torch::jit::Value* in : n->inputs()) {
    auto item = constantValue(in);
    if (!item) return std::nullopt;
    items.push_back(std::move(*item));
  }
  if (tuple) return c10::ivalue::Tuple::create(std::move(items));
  const auto listType = value->type()->cast<c10::ListType>();
  if (!listType) return std::nullopt;
  const auto element = listType->getElementType();
  if (element->kind() == c10::TypeKind::IntType) {
    c10::List<int64_t> out;
    for (const auto& i : items) {
      if (!i.isInt()) return std::nullopt;
      out.push_back(i.toInt());
    }
    return out;
  }
  if (element->kind() == c10::TypeKind::FloatType) {
    c10::List<double> out;
    for (const auto& i : items) {
      if (!i.isDouble()) return std::nullopt;
      out.push_back(i.toDouble());
    }
    return out;
  }
  if (element->kind() == c10::TypeKind::BoolType) {
    c10::List<bool> out;
    for (const auto& i : items) {
      if (!i.isBool()) return std::nullopt;
      out.push_back(i.toBool());
    }
    return out;
  }
  c10::impl::GenericList out(element);
  for (auto& i : items) out.push_back(std::move(i));
  return out;
}

}  // namespace graft::core::model
