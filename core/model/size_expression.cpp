#include "core/model/size_expression.h"

#include "core/model/op_symbols.h"
#include "core/model/shape_symbols.h"
#include "core/model/value_format.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>
#include <map>
#include <set>

namespace graft::core::model {

namespace {

using torch::jit::Node;
using torch::jit::Value;

// Reads of a tensor's size: an int from a tensor, which is all these ops look at.
bool readsASize(const Node* n) {
  static const std::set<c10::Symbol> ops{c10::Symbol::fromQualString("aten::sym_size"), c10::aten::size,
                                         c10::Symbol::fromQualString("aten::sym_numel"), ops::numel,
                                         c10::Symbol::fromQualString("aten::sym_stride"), c10::aten::dim};
  return ops.count(n->kind()) && n->outputs().size() == 1 && isScalarValue(n->output());
}

const std::map<c10::Symbol, const char*>& infixOperators() {
  static const std::map<c10::Symbol, const char*> ops{
      {c10::aten::add, "+"},      {c10::aten::sub, "-"}, {c10::aten::mul, "*"},  {c10::aten::floordiv, "//"},
      {c10::aten::div, "/"},      {c10::aten::remainder, "%"}, {c10::aten::eq, "=="}, {c10::aten::ne, "!="},
      {c10::aten::lt, "<"},       {c10::aten::le, "<="}, {c10::aten::gt, ">"},   {c10::aten::ge, ">="}};
  return ops;
}

QString expression(const Value* v, int depth);

QString operand(const Value* v, int depth) {
  const QString text = expression(v, depth);
  return infixOperators().count(v->node()->kind()) && v->node()->inputs().size() == 2
             ? QLatin1Char('(') + text + QLatin1Char(')')
             : text;
}

QString expression(const Value* v, int depth) {
  const Node* n = v->node();
  if (n->kind() == c10::prim::Constant) {
    const auto iv = torch::jit::toIValue(v);
    return iv ? formatIValue(*iv) : QStringLiteral("?");
  }
  const QString name = QString::fromStdString(v->debugName());
  if (depth > 8 || !isSizeComputation(n)) return name;  // a value computed elsewhere, by its name
  if (n->kind() == c10::prim::ListConstruct) {
    QStringList items;
    for (const Value* in : n->inputs()) items << expression(in, depth + 1);
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
  }
  if (readsASize(n)) {
    const Value* tensor = n->input(0);
    const QString of = QString::fromStdString(tensor->debugName());
    if (n->inputs().size() < 2)
      return QStringLiteral("%1(%2)").arg(QString::fromStdString(n->kind().toUnqualString()), of);
    const auto dim = torch::jit::constant_as<int64_t>(n->input(1));
    const auto type = tensor->type()->cast<c10::TensorType>();
    const auto sizes = type ? type->symbolic_sizes().sizes() : std::nullopt;
    if (dim && sizes && n->kind() != c10::Symbol::fromQualString("aten::sym_stride")) {
      const int64_t rank = int64_t(sizes->size());
      const int64_t d = *dim < 0 ? *dim + rank : *dim;
      if (d >= 0 && d < rank) {
        const c10::ShapeSymbol& s = (*sizes)[size_t(d)];
        if (s.is_static()) return QString::number(s.static_size());
        if (const QString symbol = symbolName(s); symbol != QLatin1String("?")) return symbol;
      }
    }
    return QStringLiteral("%1.size(%2)").arg(of, dim ? QString::number(*dim) : QStringLiteral("?"));
  }
  if (auto op = infixOperators().find(n->kind()); op != infixOperators().end() && n->inputs().size() == 2)
    return operand(n->input(0), depth + 1) + QLatin1String(op->second) + operand(n->input(1), depth + 1);
  QStringList args;
  for (const Value* in : n->inputs()) args << expression(in, depth + 1);
  const QString fn =
      n->kind() == c10::aten::neg ? QStringLiteral("-") : QString::fromStdString(n->kind().toUnqualString());
  return fn + QLatin1Char('(') + args.join(QStringLiteral(", ")) + QLatin1Char(')');
}

}  // namespace

bool isScalarValue(const Value* value) {
  const auto k = value->type()->kind();
  return k == c10::TypeKind::IntType || k == c10::TypeKind::FloatType || k == c10::TypeKind::BoolType ||
         k == c10::TypeKind::SymIntType || k == c10::TypeKind::SymFloatType || k == c10::TypeKind::SymBoolType;
}

bool isSizeComputation(const Node* node) {
  if (!node->blocks().empty() || node->outputs().size() != 1) return false;
  if (readsASize(node)) return true;
  const auto sized = [](const Value* in) {
    return in->node()->kind() == c10::prim::Constant || isSizeComputation(in->node());
  };
  if (node->kind() == c10::prim::ListConstruct) {
    const auto list = node->output()->type()->cast<c10::ListType>();
    if (!list || list->getElementType()->kind() != c10::TypeKind::IntType) return false;
    return std::all_of(node->inputs().begin(), node->inputs().end(), sized) &&
           std::any_of(node->inputs().begin(), node->inputs().end(),
                       [](const Value* in) { return in->node()->kind() != c10::prim::Constant; });
  }
  if (node->kind().is_prim() && node->kind() != c10::prim::max && node->kind() != c10::prim::min) return false;
  if (!isScalarValue(node->output()) || node->inputs().empty()) return false;
  return std::all_of(node->inputs().begin(), node->inputs().end(),
                     [&](const Value* in) { return isScalarValue(in) && sized(in); });
}

QString sizeExpression(const Value* value) { return expression(value, 0); }

}  // namespace graft::core::model
