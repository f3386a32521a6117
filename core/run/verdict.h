#pragma once
// The rounding model behind every default verdict. "Does B compute the same thing as A?" is
// judged the way the numbers were made: A is also run at float64 (the reference R), and B's
// error |B - R| is allowed what the arithmetic in play explains — A's own error |A - R| per unit
// roundoff of A's arithmetic (how much this computation amplifies rounding), times the unit
// roundoff of B's arithmetic, with slack. A change that only reorders float32 arithmetic (a
// folded batch norm) stays within it; a planted change (one weight scaled by 1.01) does not.
// Finite against inf or NaN is never within; NaN against NaN at the same place is equal.
#include <ATen/core/Tensor.h>

#include <QtCore/QString>
#include <cstdint>
#include <vector>

namespace graft::core::run {

// One arithmetic that may explain B's error: its unit roundoff and how the verdict names it.
struct Explanation {
  double unitRoundoff = 0;
  QString name;  // "float32 rounding", "TF32 rounding (cuDNN allows TF32 convolutions by default)"
  // Measured rather than scaled: A itself was also run with this arithmetic (TF32 emulated on the
  // CPU), and B may err as much as that run does, with kMeasuredSlack. TF32 rounds only the
  // inputs of convolutions and products, so float32's amplification says little about it.
  bool measured = false;
  // The spacing of the arithmetic's subnormals: below its normal range (float32's 1.2e-38) a
  // rounding errs by up to this much whatever the value, so the allowance never falls below it.
  double spacing = 0x1p-149;
};

struct RoundingModel {
  double unitRoundoffA = 0x1p-24;  // A's arithmetic (float32 unless A runs lower)
  double spacingA = 0x1p-149;      // its subnormal spacing
  // B's arithmetic, finest first: the first that explains B's error names the verdict.
  std::vector<Explanation> ladderB;
};

// How far B's error may exceed what the unit roundoffs predict from A's own error: reordering
// the same float32 arithmetic (a fold, a fused op, another kernel) moves errors by a few times.
// Each rounding errs by u·|x| + η (u the unit roundoff, η the subnormal spacing): A's error is
// measured in units of u·scale + η of its arithmetic, and B is allowed as many units of its own.
constexpr double kRoundingSlack = 10;
// The least amplification assumed: a value A happened to compute exactly still allows B a few
// roundings of its largest magnitude.
constexpr double kMinAmplification = 4;
// A measured rung's slack: the same rounding on another device or kernel errs by a few times as
// much, not by an order of magnitude.
constexpr double kMeasuredSlack = 4;

// The subnormal floor never allows more than this share of the tensor's scale: a tensor wholly
// below a dtype's smallest value (float16 outputs of 1e-9, all flushed to 0) lost everything,
// which no rounding explains.
constexpr double kMaxFloorShare = 0.1;

struct RoundingJudgement {
  bool within = true;
  double ratio = 0;          // B's largest error over its allowance at the last rung tried
  QString explainedBy;       // the rung that explains B's error (empty when none does)
  int rung = -1;             // its index in the ladder
  std::int64_t beyond = 0;   // elements whose error exceeds the allowance at the last rung
};

// `a`, `b`, `r`: float64 tensors of one shape, compared where all three are finite (the caller
// judges non-finite places). `aMeasured`: A run with the measured rung's arithmetic (undefined
// when there is no such run; a measured rung is then scaled like the others).
RoundingJudgement judgeRounding(const at::Tensor& a, const at::Tensor& b, const at::Tensor& r,
                                const RoundingModel& model, const at::Tensor& aMeasured = {});

}  // namespace graft::core::run
