#include "core/report/verdict_line.h"

#include "core/run/compare.h"

namespace graft::core::report {

QString VerdictLine::text() const {
  if (kind == Kind::None) return {};
  QString head = word;
  if (!head.isEmpty()) head[0] = head[0].toUpper();
  return reason.isEmpty() ? head : QStringLiteral("%1 — %2").arg(head, reason);
}

VerdictLine verdictLine(const run::CompareSummary& summary) {
  VerdictLine v;
  if (!summary.ok) return v;
  const run::CompareResult* detail = summary.detail.get();
  v.reason = detail ? detail->reason.trimmed() : QString();
  if (!summary.equal) {
    v.kind = VerdictLine::Kind::Different;
    v.word = QStringLiteral("different");
  } else if (summary.intermediateDivergence) {
    v.kind = VerdictLine::Kind::IntermediateDiffers;
    v.word = QStringLiteral("outputs equal, an intermediate different");
  } else if (detail && detail->agreement() == run::CompareResult::Agreement::Exact) {
    v.kind = VerdictLine::Kind::Exact;
    v.word = QStringLiteral("exact");
    if (v.reason.isEmpty()) v.reason = QStringLiteral("every output bit-identical");
  } else if (detail && detail->agreement() == run::CompareResult::Agreement::WithinTolerance) {
    v.kind = VerdictLine::Kind::EqualWithinTolerance;
    v.word = QStringLiteral("equal within tolerance");
  } else {
    v.kind = VerdictLine::Kind::EqualWithinRounding;
    v.word = QStringLiteral("equal within rounding");
  }
  return v;
}

}  // namespace graft::core::report
