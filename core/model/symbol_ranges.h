#pragma once
// The ranges a torch.export program allows its symbolic dimensions ("s77" in [2, 64]), from its
// range_constraints, for tooltips and reports. Kept by name for the process, as the symbols
// themselves are (shape_symbols.h). Plain Qt, so the UI can ask.
#include <QtCore/QString>
#include <optional>

namespace graft::core::model {

struct SymbolRange {
  qint64 min = 0;
  std::optional<qint64> max;  // none: unbounded
};

void setSymbolRange(const QString& name, SymbolRange range);
std::optional<SymbolRange> symbolRange(const QString& name);
// "2 ≤ s77 ≤ 64" for every symbol with a known range named in `typeText` ("float32 [s77, 8]"),
// one per line; empty when there is none.
QString symbolRangesIn(const QString& typeText);

}  // namespace graft::core::model
