#include "core/report/shapes_report.h"

#include "core/model/graph_walk.h"
#include "core/model/module_path.h"
#include "core/model/revision.h"
#include "core/model/shape_symbols.h"
#include "core/model/symbol_ranges.h"
#include "core/model/value_format.h"
#include "core/run/executor.h"

#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QJsonArray>

#include <algorithm>
#include <unordered_set>

namespace graft::core::report {

namespace {

QJsonObject valueEntry(const torch::jit::Value* v, const model::Revision& revision, const QJsonValue& shape,
                       const QString& dtype) {
  const torch::jit::Node* n = v->node();
  const bool input = n->kind() == c10::prim::Param;
  return QJsonObject{{"name", QString::fromStdString(v->debugName())},
                     {"node", input ? QJsonValue() : QJsonValue(qint64(revision.idOf(n)))},
                     {"op", input ? QStringLiteral("input") : QString::fromStdString(n->kind().toQualString())},
                     {"module_path", input ? QString() : revision.modulePathOf(revision.idOf(n))},
                     {"shape", shape},
                     {"dtype", dtype}};
}

// Shape and dtype of a typed value; null when the type says nothing about them.
std::pair<QJsonValue, QString> typeFacts(const torch::jit::Value* v) {
  const auto t = v->type()->cast<c10::TensorType>();
  if (!t) return {QJsonValue(), QString()};
  QJsonValue shape;
  if (const auto dims = t->symbolic_sizes().sizes()) {
    QJsonArray a;
    for (const auto& d : *dims)
      a.append(d.is_static() ? QJsonValue(qint64(d.static_size())) : QJsonValue(model::symbolName(d)));
    shape = a;
  }
  const QString dtype = t->scalarType() ? model::dtypeName(static_cast<int>(*t->scalarType())) : QString();
  return {shape, dtype};
}

bool wanted(const torch::jit::Node* n) { return n->kind() != c10::prim::Constant && n->kind() != c10::prim::GetAttr; }

}  // namespace

QJsonObject shapesFromMetadata(const model::Revision& revision) {
  QJsonArray values;
  const auto graph = revision.graph();
  for (size_t i = 1; i < graph->inputs().size(); ++i) {
    const auto [shape, dtype] = typeFacts(graph->inputs()[i]);
    values.append(valueEntry(graph->inputs()[i], revision, shape, dtype));
  }
  model::forEachNode(*graph, [&](torch::jit::Node* n) {
    if (!wanted(n)) return;
    for (const auto* out : n->outputs()) {
      const auto [shape, dtype] = typeFacts(out);
      if (!dtype.isEmpty()) values.append(valueEntry(out, revision, shape, dtype));
    }
  });
  // The range the program allows each symbolic dimension named above.
  QJsonObject symbols;
  for (const auto& v : values)
    for (const auto& d : v.toObject().value(QLatin1String("shape")).toArray())
      if (auto range = revision.symbolRanges().constFind(d.toString());
          d.isString() && range != revision.symbolRanges().constEnd())
        symbols.insert(d.toString(),
                       QJsonObject{{"min", range->min}, {"max", range->max ? QJsonValue(*range->max) : QJsonValue()}});
  return QJsonObject{{"source", QStringLiteral("metadata")}, {"values", values}, {"symbols", symbols}};
}

QJsonObject shapesFromRun(const model::RevisionPtr& revision, const model::InputSet& inputs, QString* error) {
  run::Executor executor(revision);
  run::RunOptions options;
  options.instrumented = true;
  options.keepIntermediates = true;
  const auto result = executor.run(inputs, options);
  if (!result.ok) {
    if (error) *error = result.error.headline();
    return {};
  }
  return shapesOfRun(*revision, inputs, result);
}

QJsonObject shapesOfRun(const model::Revision& revision, const model::InputSet& inputs, const run::RunResult& result) {
  QJsonArray values;
  QJsonObject symbols;  // each symbolic dimension the run gave a size: its size and the program's range
  // A value of a program with symbolic sizes: its concrete shape, and its declared shape beside it.
  const auto entry = [&](const torch::jit::Value* v, const QJsonArray& shape, const QString& dtype) {
    QJsonObject e = valueEntry(v, revision, shape, dtype);
    const QJsonArray declared = typeFacts(v).first.toArray();
    if (declared.size() != shape.size() ||
        std::none_of(declared.begin(), declared.end(), [](const QJsonValue& d) { return d.isString(); }))
      return e;
    e.insert(QStringLiteral("symbolic_shape"), declared);
    for (qsizetype k = 0; k < declared.size(); ++k) {
      const QString name = declared[k].toString();
      const auto range = revision.symbolRanges().constFind(name);
      if (name.isEmpty() || range == revision.symbolRanges().constEnd() || symbols.contains(name)) continue;
      symbols.insert(name, QJsonObject{{"value", shape[k]},
                                       {"min", range->min},
                                       {"max", range->max ? QJsonValue(*range->max) : QJsonValue()}});
    }
    return e;
  };
  const auto graph = revision.graph();
  for (size_t i = 1; i < graph->inputs().size() && i - 1 < inputs.values.size(); ++i) {
    const auto& v = inputs.values[i - 1];
    QJsonArray shape;
    if (v.isTensor())
      for (auto d : v.toTensor().sizes()) shape.append(qint64(d));
    if (v.isTensor())
      values.append(entry(graph->inputs()[i], shape, model::dtypeName(static_cast<int>(v.toTensor().scalar_type()))));
    else values.append(valueEntry(graph->inputs()[i], revision, QJsonValue(), QString()));
  }
  std::unordered_set<model::NodeId> seen;  // a node inside a loop runs many times: its first run
  for (const auto& rec : result.nodes) {
    const torch::jit::Node* n = revision.nodeOf(rec.id);
    if (!n || !seen.insert(rec.id).second) continue;
    for (size_t k = 0; k < rec.outputs.size() && k < n->outputs().size(); ++k) {
      if (!rec.outputs[k].isTensor()) continue;
      const at::Tensor& t = rec.outputs[k].toTensor();
      QJsonArray shape;
      for (auto d : t.sizes()) shape.append(qint64(d));
      values.append(entry(n->outputs()[k], shape, model::dtypeName(static_cast<int>(t.scalar_type()))));
    }
  }
  QJsonObject report{{"source", QStringLiteral("run")}, {"values", values}};
  if (!symbols.isEmpty()) report.insert(QStringLiteral("symbols"), symbols);
  return report;
}

}  // namespace graft::core::report
