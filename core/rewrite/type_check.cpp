#include "core/rewrite/type_check.h"

#include <torch/csrc/jit/ir/ir.h>

#include <functional>

namespace graft::core::rewrite {

namespace {

QString typeText(const c10::TypePtr& type) { return QString::fromStdString(type->annotation_str()); }

// "%y (aten::dim)": the value and the node that makes it, for messages.
QString valueText(const torch::jit::Value* v) {
  const auto* producer = v->node();
  const QString kind = producer->kind() == c10::prim::Param ? QStringLiteral("an input")
                                                            : QString::fromStdString(producer->kind().toQualString());
  return QStringLiteral("%%1 (%2)").arg(QString::fromStdString(v->debugName()), kind);
}

QString misfit(const torch::jit::Value* v, const c10::TypePtr& want, const QString& where) {
  if (v->type()->isSubtypeOf(*want)) return {};
  return QStringLiteral("%1 is %2, but %3 takes %4 there")
      .arg(valueText(v), typeText(v->type()), where, typeText(want));
}

}  // namespace

QString checkValueTypes(const torch::jit::Graph& graph, const std::vector<c10::TypePtr>& outputTypes) {
  const auto outputs = graph.outputs();
  for (size_t i = 0; i < outputs.size() && i < outputTypes.size(); ++i)
    if (QString why = misfit(outputs[i], outputTypes[i], QStringLiteral("forward's result %1").arg(i)); !why.isEmpty())
      return why;
  QString problem;
  std::function<void(const torch::jit::Block*)> walk = [&](const torch::jit::Block* block) {
    for (const auto* n : block->nodes()) {
      if (!problem.isEmpty()) return;
      const QString kind = QString::fromStdString(n->kind().toQualString());
      if (n->kind() == c10::prim::ListConstruct) {
        if (const auto list = n->output()->type()->cast<c10::ListType>())
          for (const auto* in : n->inputs())
            if (problem = misfit(in, list->getElementType(), kind); !problem.isEmpty()) return;
      } else if (n->kind() == c10::prim::TupleConstruct) {
        if (const auto tuple = n->output()->type()->cast<c10::TupleType>();
            tuple && tuple->elements().size() == n->inputs().size())
          for (size_t i = 0; i < n->inputs().size(); ++i)
            if (problem = misfit(n->input(i), tuple->elements()[i], kind); !problem.isEmpty()) return;
      }
      // A block's results become its node's outputs (prim::If: each branch; prim::Loop: the
      // carried values after the first, the condition).
      for (const auto* sub : n->blocks()) {
        const auto results = sub->outputs();
        const size_t skip = n->kind() == c10::prim::Loop ? 1 : 0;
        for (size_t i = skip; i < results.size() && i - skip < n->outputs().size(); ++i)
          if (problem = misfit(results[i], n->output(i - skip)->type(),
                               QStringLiteral("the result %1 of %2").arg(i - skip).arg(kind));
              !problem.isEmpty())
            return;
        walk(sub);
      }
    }
  };
  walk(graph.block());
  return problem;
}

}  // namespace graft::core::rewrite
