#pragma once
// A comparison's verdict as people read it, one line shared by the Compare dock and the HTML
// report: the word ("exact", "equal within rounding", "different", or outputs equal with an
// intermediate different) and the one-line reason the comparison gives for it.
#include "core/run/compare_job.h"

#include <QtCore/QString>

namespace graft::core::report {

struct VerdictLine {
  enum class Kind { None, Exact, EqualWithinRounding, EqualWithinTolerance, IntermediateDiffers, Different };
  Kind kind = Kind::None;
  QString word;    // "exact", "equal within rounding", "equal within tolerance" (elementwise), "outputs equal, an
                   // intermediate different", "different"
  QString reason;  // "within float32 rounding (SQNR 130 dB)"; empty when the comparison gave none
  // "Exact — every output bit-identical", "Equal within rounding — within float32 rounding (SQNR 130 dB)".
  QString text() const;
  bool good() const {
    return kind == Kind::Exact || kind == Kind::EqualWithinRounding || kind == Kind::EqualWithinTolerance;
  }
};

// The verdict of `summary` (Kind::None unless it ran), worded from CompareResult::agreement().
VerdictLine verdictLine(const run::CompareSummary& summary);

}  // namespace graft::core::report
