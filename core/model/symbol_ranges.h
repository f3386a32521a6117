#pragma once
// The ranges a torch.export program allows its symbolic dimensions ("s77" in [2, 64]), from its
// range_constraints, for runs, tooltips and reports. Each program keeps its own (the revisions of
// a document carry them): two open programs may both call a dimension "s77". Plain Qt, so the UI
// can ask.
#include <QtCore/QHash>
#include <QtCore/QString>
#include <optional>

namespace graft::core::model {

struct SymbolRange {
  qint64 min = 0;
  std::optional<qint64> max;  // none: unbounded
};

// By symbol name.
using SymbolRanges = QHash<QString, SymbolRange>;

// "2 ≤ s77 ≤ 64" for every symbol of `ranges` named in `typeText` ("float32 [s77, 8]"), one per
// line; empty when there is none.
QString symbolRangesIn(const QString& typeText, const SymbolRanges& ranges);

}  // namespace graft::core::model
