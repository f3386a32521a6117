#include "core/model/symbol_ranges.h"

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QRegularExpression>
#include <QtCore/QStringList>

namespace graft::core::model {

namespace {

QMutex rangesMutex;
QHash<QString, SymbolRange>& ranges() {
  static QHash<QString, SymbolRange> byName;
  return byName;
}

}  // namespace

void setSymbolRange(const QString& name, SymbolRange range) {
  QMutexLocker lock(&rangesMutex);
  ranges().insert(name, range);
}

std::optional<SymbolRange> symbolRange(const QString& name) {
  QMutexLocker lock(&rangesMutex);
  auto it = ranges().constFind(name);
  if (it == ranges().constEnd()) return std::nullopt;
  return *it;
}

QString symbolRangesIn(const QString& typeText) {
  static const QRegularExpression symbol(QStringLiteral(R"(\b([a-z]\d+)\b)"));
  QStringList lines;
  for (auto it = symbol.globalMatch(typeText); it.hasNext();) {
    const QString name = it.next().captured(1);
    const auto range = symbolRange(name);
    if (!range) continue;
    const QString line = range->max ? QStringLiteral("%1 ≤ %2 ≤ %3").arg(range->min).arg(name).arg(*range->max)
                                    : QStringLiteral("%1 ≤ %2").arg(range->min).arg(name);
    if (!lines.contains(line)) lines << line;
  }
  return lines.join(QLatin1Char('\n'));
}

}  // namespace graft::core::model
