#include "core/run/dimension_check.h"

#include "core/model/shape_symbols.h"
#include "core/model/symbol_ranges.h"

#include <torch/csrc/jit/ir/ir.h>

#include <map>

namespace graft::core::run {

QString checkSymbolicDimensions(const torch::jit::Graph& graph, const std::vector<c10::IValue>& inputs,
                                const model::SymbolRanges& ranges) {
  const auto graphInputs = graph.inputs();
  std::map<QString, std::pair<int64_t, QString>> bound;  // symbol → size and where it was bound
  for (size_t i = 0; i < inputs.size() && i + 1 < graphInputs.size(); ++i) {
    const auto type = graphInputs[i + 1]->type()->cast<c10::TensorType>();
    if (!type || !inputs[i].isTensor() || !type->symbolic_sizes().sizes()) continue;
    const auto dims = *type->symbolic_sizes().sizes();
    const at::Tensor t = inputs[i].toTensor();
    const QString name = QString::fromStdString(graphInputs[i + 1]->debugName());
    if (size_t(t.dim()) != dims.size())
      return QStringLiteral("input %1 (%2) has %3 dimensions; the program takes %4")
          .arg(i)
          .arg(name)
          .arg(t.dim())
          .arg(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) {
      const int64_t size = t.size(int64_t(d));
      if (dims[d].is_static()) {
        if (dims[d].static_size() != size)
          return QStringLiteral(
                     "input %1 (%2) dimension %3 is %4; the program was exported for %5 there (not a dynamic "
                     "dimension)")
              .arg(i)
              .arg(name)
              .arg(d)
              .arg(size)
              .arg(dims[d].static_size());
        continue;
      }
      const QString symbol = model::symbolName(dims[d]);
      if (symbol == QLatin1String("?")) continue;
      const QString where = QStringLiteral("input %1 (%2) dimension %3").arg(i).arg(name).arg(d);
      if (auto range = ranges.constFind(symbol); range != ranges.constEnd()) {
        if (size < range->min || (range->max && size > *range->max))
          return QStringLiteral("%1 is %2, outside the program's range_constraints: %3 ≤ %4%5")
              .arg(where).arg(size).arg(range->min).arg(symbol)
              .arg(range->max ? QStringLiteral(" ≤ %1").arg(*range->max) : QString());
      }
      auto [it, fresh] = bound.try_emplace(symbol, size, where);
      if (!fresh && it->second.first != size)
        return QStringLiteral("%1 is %2 but %3 is %4: both are %5 in the program")
            .arg(where).arg(size).arg(it->second.second).arg(it->second.first).arg(symbol);
    }
  }
  return {};
}

}  // namespace graft::core::run
