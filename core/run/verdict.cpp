#include "core/run/verdict.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>

namespace graft::core::run {

RoundingJudgement judgeRounding(const at::Tensor& a, const at::Tensor& b, const at::Tensor& r,
                                const RoundingModel& model, const at::Tensor& aMeasured) {
  RoundingJudgement j;
  const at::Tensor finite = a.isfinite().logical_and(b.isfinite()).logical_and(r.isfinite());
  const at::Tensor zero = at::zeros_like(r);
  const at::Tensor errA = at::where(finite, (a - r).abs(), zero);
  const at::Tensor errB = at::where(finite, (b - r).abs(), zero);
  const double maxErrA = errA.numel() ? errA.max().item<double>() : 0.0;
  const double maxErrB = errB.numel() ? errB.max().item<double>() : 0.0;
  if (maxErrB == 0) {
    j.explainedBy = model.ladderB.empty() ? QString() : model.ladderB.front().name;
    j.rung = 0;
    return j;
  }
  double scale = at::where(finite, r.abs(), zero).max().item<double>();
  if (scale == 0) scale = at::where(finite, a.abs(), zero).max().item<double>();
  if (scale == 0) {  // A and the reference are all zero where B is not
    j.within = false;
    j.ratio = std::numeric_limits<double>::infinity();
    j.beyond = (errB > 0).sum().item<int64_t>();
    return j;
  }
  const double amplification = std::max(maxErrA / (model.unitRoundoffA * scale + model.spacingA), kMinAmplification);
  const bool measurable = aMeasured.defined() && aMeasured.sizes() == r.sizes();
  const double measuredErr =
      measurable ? at::where(finite.logical_and(aMeasured.isfinite()), (aMeasured - r).abs(), zero).max().item<double>()
                 : 0.0;
  j.within = false;
  double scaledAllowance = 0;
  for (size_t i = 0; i < model.ladderB.size(); ++i) {
    const Explanation& rung = model.ladderB[i];
    // Never tighter than the rung below: a measured rung only adds what its run showed. Without
    // its run (it failed), the rung is scaled from unit roundoffs like the others.
    const double allowance = rung.measured && measurable
                                 ? std::max(scaledAllowance, kMeasuredSlack * measuredErr)
                                 : kRoundingSlack * amplification * rung.unitRoundoff * scale +
                                       std::min(kRoundingSlack * amplification * rung.spacing, kMaxFloorShare * scale);
    scaledAllowance = std::max(scaledAllowance, allowance);
    j.ratio = maxErrB / allowance;
    j.beyond = (errB > allowance).sum().item<int64_t>();
    if (j.ratio <= 1) {
      j.within = true;
      j.explainedBy = rung.name;
      j.rung = int(i);
      break;
    }
  }
  return j;
}

}  // namespace graft::core::run
