#include "core/model/constant_value.h"

#include "core/model/value_format.h"

#include <ATen/ATen.h>

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
    return typed(
        int64_t{}, [](const c10::IValue& i) { return i.isInt(); }, [](const c10::IValue& i) { return i.toInt(); });
  if (element->kind() == c10::TypeKind::FloatType)
    return typed(
        double{}, [](const c10::IValue& i) { return i.isDouble(); }, [](const c10::IValue& i) { return i.toDouble(); });
  if (element->kind() == c10::TypeKind::BoolType)
    return typed(
        bool{}, [](const c10::IValue& i) { return i.isBool(); }, [](const c10::IValue& i) { return i.toBool(); });
  c10::impl::GenericList out(element);
  for (auto& i : items) out.push_back(std::move(i));
  return out;
}

namespace {

bool sameTensor(const at::Tensor& a, const at::Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined() || a.is_same(b)) return true;
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes() || a.device() != b.device() ||
      a.layout() != b.layout() || a.is_quantized() != b.is_quantized())
    return false;
  try {
    // Revisions of one document share their weights: the same memory needs no reading.
    if (a.layout() == at::kStrided && !a.is_quantized() && a.data_ptr() == b.data_ptr() && a.strides() == b.strides())
      return true;
    return at::equal(a, b);
  } catch (const c10::Error&) {
    return false;  // a kind of tensor equal() cannot read: only the same tensor is the same
  }
}

}  // namespace

bool sameConstantValue(const c10::IValue& a, const c10::IValue& b) {
  if (a.isTensor() || b.isTensor()) return a.isTensor() && b.isTensor() && sameTensor(a.toTensor(), b.toTensor());
  if (a.tagKind() != b.tagKind()) return false;
  const auto sameItems = [](c10::ArrayRef<c10::IValue> x, c10::ArrayRef<c10::IValue> y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!sameConstantValue(x[i], y[i])) return false;
    return true;
  };
  // Item by item: IValue's == asks a tensor inside a list for one truth value, which fails for
  // more than one element (aten::index's index list holding a buffer, Swin).
  if (a.isList()) return sameItems(a.toListRef(), b.toListRef());
  if (a.isTuple()) return sameItems(a.toTupleRef().elements(), b.toTupleRef().elements());
  if (a.isNone() || a.isInt() || a.isDouble() || a.isBool() || a.isString() || a.isDevice()) return a == b;
  if (a.isSameIdentity(b)) return true;
  return formatIValue(a) == formatIValue(b);
}

}  // namespace graft::core::model
