#include "core/run/verdict.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>

namespace graft::core::run {

RoundingJudgement judgeRounding(const at::Tensor& a, const at::Tensor& b, const at::Tensor& r,
                                const RoundingModel& model) {
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
  const double amplification = std::max(maxErrA / (model.unitRoundoffA * scale), kMinAmplification);
  j.within = false;
  for (size_t i = 0; i < model.ladderB.size(); ++i) {
    const Explanation& rung = model.ladderB[i];
    const double allowance = kRoundingSlack * amplification * rung.unitRoundoff * scale;
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
