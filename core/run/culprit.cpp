#include "core/run/culprit.h"

#include "core/run/compare.h"

#include <cmath>
#include <limits>

namespace graft::core::run {

double scaledLocalError(const NodeDiff& row) { return row.local ? scaledError(*row.local) : 0; }

double scaledError(const TensorDiff& d) {
  if (!d.note.isEmpty() || !std::isfinite(d.maxAbs)) return std::numeric_limits<double>::infinity();
  if (d.maxAbs == 0) return 0;
  return d.maxAbs / std::max(d.refMaxAbs, std::numeric_limits<double>::min());
}

// Ops that make a buffer rather than compute a value (new_zeros, empty_like, full, ...).
bool isBufferFactory(const QString& op) {
  const QString name = op.section(QStringLiteral("::"), 1).section(QLatin1Char('.'), 0, 0);
  return name.startsWith(QLatin1String("new_")) || name.startsWith(QLatin1String("zeros")) ||
         name.startsWith(QLatin1String("ones")) || name.startsWith(QLatin1String("empty")) ||
         name.startsWith(QLatin1String("full"));
}

std::optional<Culprit> findCulprit(const std::vector<NodeDiff>& rows, double noiseFloor) {
  const NodeDiff* worst = nullptr;
  double worstScaled = 0;
  for (const NodeDiff& row : rows) {
    // A node whose output is written in place later (a batch norm before `out += identity`) is
    // judged by what it computed itself: its record is a copy taken when it ran, and its local
    // error is its own run at B's precision. Only a buffer made to be filled later (new_zeros,
    // then fill_) introduces nothing itself.
    if (row.writtenLater && isBufferFactory(row.opA)) continue;
    const double scaled = scaledLocalError(row);
    if (scaled > worstScaled) {
      worst = &row;
      worstScaled = scaled;
    }
  }
  if (!worst || !(worstScaled > noiseFloor)) return std::nullopt;
  return Culprit{worst->nodeA, worst->nodeB, worst->opA, worst->modulePath, worst->local->maxAbs, worstScaled};
}

double culpritNoiseFloor(double lowerUnitRoundoff) { return 16 * lowerUnitRoundoff; }

QString shareOfScale(double scaled) {
  const double percent = 100 * scaled;
  return QStringLiteral("%1% of its scale")
      .arg(percent >= 1000 ? QString::number(percent, 'f', 0) : QString::number(percent, 'g', 3));
}

}  // namespace graft::core::run
