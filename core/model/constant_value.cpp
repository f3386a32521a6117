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
  // A typed list, as a prim::Constant of that type holds it.
  auto typed = [&](auto tag, auto holds, auto take) -> std::optional<c10::IValue> {
    c10::List<decltype(tag)> out;
    for (const auto& i : items) {
      if (!holds(i)) return std::nullopt;
      out.push_back(take(i));
    }
    return c10::IValue(out);
  };
  if (element->kind() == c10::TypeKind::IntType)
    return typed(int64_t{}, [](const c10::IValue& i) { return i.isInt(); }, [](const c10::IValue& i) { return i.toInt(); });
  if (element->kind() == c10::TypeKind::FloatType)
    return typed(double{}, [](const c10::IValue& i) { return i.isDouble(); }, [](const c10::IValue& i) { return i.toDouble(); });
  if (element->kind() == c10::TypeKind::BoolType)
    return typed(bool{}, [](const c10::IValue& i) { return i.isBool(); }, [](const c10::IValue& i) { return i.toBool(); });
  c10::impl::GenericList out(element);
  for (auto& i : items) out.push_back(std::move(i));
  return out;
}

}  // namespace graft::core::model
