#include "core/profile/profile.h"

#include <algorithm>
#include <cmath>

namespace graft::core::profile {

namespace {

// Linear interpolation between closest ranks (numpy's default percentile).
double percentile(const QVector<double>& sorted, double p) {
  if (sorted.isEmpty()) return 0;
  const double pos = p * (sorted.size() - 1);
  const int lo = static_cast<int>(std::floor(pos));
  const int hi = std::min<int>(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

}  // namespace

Stats Stats::of(QVector<double> values) {
  std::sort(values.begin(), values.end());
  Stats s;
  s.median = percentile(values, 0.5);
  s.p10 = percentile(values, 0.1);
  s.p90 = percentile(values, 0.9);
  s.q1 = percentile(values, 0.25);
  s.q3 = percentile(values, 0.75);
  return s;
}

Speedup speedup(const Profile& before, const Profile& after) {
  QVector<double> ratios;
  const int n = std::min(before.runMs.size(), after.runMs.size());
  for (int i = 0; i < n; ++i)
    if (after.runMs[i] > 0) ratios.push_back(before.runMs[i] / after.runMs[i]);
  const Stats s = Stats::of(ratios);
  return {s.median, s.q1, s.q3};
}

}  // namespace graft::core::profile
