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
  const int runs = std::min(before.runMs.size(), after.runMs.size());
  for (int i = 0; i < runs; ++i)
    if (after.runMs[i] > 0) ratios.push_back(before.runMs[i] / after.runMs[i]);
  const Stats s = Stats::of(ratios);
  Speedup out{s.median, s.q1, s.q3};
  out.pairs = int(ratios.size());
  if (ratios.isEmpty()) return out;
  std::sort(ratios.begin(), ratios.end());
  // The median's interval from order statistics: ranks k and n+1-k, with k the largest rank whose
  // binomial(n, 1/2) tail P(X <= k-1) stays within 2.5% (k = 1, the range, when none does).
  const int n = int(ratios.size());
  int k = 1;
  double tail = 0, term = std::pow(0.5, n);  // P(X = 0)
  for (int j = 0; j < n / 2; ++j) {
    tail += term;  // P(X <= j)
    if (tail > 0.025) break;
    k = j + 1;
    term = term * double(n - j) / double(j + 1);
  }
  out.low = ratios[k - 1];
  out.high = ratios[n - k];
  return out;
}

}  // namespace graft::core::profile
