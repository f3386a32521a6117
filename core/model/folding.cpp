#include "core/model/folding.h"
#include "core/model/size_expression.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

namespace graft::core::model {

bool isFolded(const torch::jit::Node* node) {
  const auto kind = node->kind();
  if (kind == c10::prim::Constant || kind == c10::prim::GetAttr) return true;
  if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct) {
    for (const torch::jit::Value* in : node->inputs())
      if (in->node()->kind() != c10::prim::Constant) return false;
    return true;
  }
  return false;
}

bool isItemList(const torch::jit::Node* node) {
  if (node->kind() != c10::prim::ListConstruct || isFolded(node) || node->output()->uses().size() != 1) return false;
  const auto list = node->output()->type()->cast<c10::ListType>();
  return list && list->getElementType()->kind() == c10::TypeKind::TensorType &&
         node->output()->uses()[0].user->owningBlock() == node->owningBlock();
}

bool isAttributeOfItsOp(const torch::jit::Node* node) {
  return isFolded(node) || isItemList(node) || isSizeComputation(node);
}

bool isOpOfItsOwn(const torch::jit::Node* node) {
  if (isAttributeOfItsOp(node)) return false;
  return !node->kind().is_prim() || !node->blocks().empty() || node->outputs().empty();
}

QString argumentName(const torch::jit::Node* node, std::size_t index) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (!schema)
    for (const auto& op : torch::jit::getAllOperatorsFor(node->kind()))
      if (node->matches(op->schema())) {
        schema = &op->schema();
        break;
      }
  if (schema && index < schema->arguments().size()) return QString::fromStdString(schema->arguments()[index].name());
  return QStringLiteral("input %1").arg(index);
}

}  // namespace graft::core::model
