#pragma once
// Wall-clock timing for the benchmarks: milliseconds since a point, and the median of repeated runs.
#include <algorithm>
#include <chrono>
#include <vector>

namespace graft::bench {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// Median of `runs` timings of fn().
template <typename Fn>
double medianMs(int runs, Fn&& fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    fn();
    t.push_back(msSince(t0));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace graft::bench
