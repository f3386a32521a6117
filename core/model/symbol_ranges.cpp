#include "core/model/symbol_ranges.h"

#include <QtCore/QRegularExpression>
#include <QtCore/QStringList>

namespace graft::core::model {

QString symbolRangesIn(const QString& typeText, const SymbolRanges& ranges) {
  static const QRegularExpression symbol(QStringLiteral(R"(\b([a-z]\d+)\b)"));
  QStringList lines;
  for (auto it = symbol.globalMatch(typeText); it.hasNext();) {
    const QString name = it.next().captured(1);
    const auto range = ranges.constFind(name);
    if (range == ranges.constEnd()) continue;
    const QString line = range->max ? QStringLiteral("%1 ≤ %2 ≤ %3").arg(range->min).arg(name).arg(*range->max)
                                    : QStringLiteral("%1 ≤ %2").arg(range->min).arg(name);
    if (!lines.contains(line)) lines << line;
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace graft::core::model
