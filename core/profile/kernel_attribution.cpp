#include "core/profile/kernel_attribution.h"

#include <QtCore/QHash>
#include <QtCore/QSet>

#include <algorithm>

namespace graft::core::profile {

KernelAttribution attributeKernels(const QVector<ActivityRecord>& activity, const QVector<OpEvent>& ops,
                                   qint64 toleranceNs) {
  // The top-level op spans in start order: graph ops run one after the other on one thread.
  QVector<const OpEvent*> spans;
  for (const auto& e : ops)
    if (e.depth == 0) spans << &e;
  std::stable_sort(spans.begin(), spans.end(),
                   [](const OpEvent* a, const OpEvent* b) { return a->startNs < b->startNs; });

  // The host time of each correlation's runtime call (the first, should a call be recorded twice).
  QHash<quint64, qint64> launchOf;
  for (const auto& r : activity)
    if (!r.onDevice && r.correlation != 0 && !launchOf.contains(r.correlation))
      launchOf.insert(r.correlation, r.startNs);
  // The same by correlation id: ids are handed out in call order, so a kernel whose launching call
  // was not recorded (a driver-API launch, say) was launched between its neighbours' calls.
  std::vector<std::pair<quint64, qint64>> byCorrelation(launchOf.keyValueBegin(), launchOf.keyValueEnd());
  std::sort(byCorrelation.begin(), byCorrelation.end());

  // The op span holding a host time, or the nearer one within the tolerance; and the spans either side.
  struct Place {
    const OpEvent* owner = nullptr;
    const OpEvent* before = nullptr;
    const OpEvent* after = nullptr;
  };
  auto placeOf = [&](qint64 at) {
    Place p;
    const auto next =
        std::upper_bound(spans.begin(), spans.end(), at, [](qint64 t, const OpEvent* e) { return t < e->startNs; });
    p.before = next == spans.begin() ? nullptr : *(next - 1);
    p.after = next == spans.end() ? nullptr : *next;
    if (p.before && at <= p.before->startNs + p.before->durationNs) {
      p.owner = p.before;
    } else {
      // Outside every span: the nearer neighbour, if within the tolerance.
      const qint64 gapBefore = p.before ? at - (p.before->startNs + p.before->durationNs) : -1;
      const qint64 gapAfter = p.after ? p.after->startNs - at : -1;
      if (gapBefore >= 0 && gapBefore <= toleranceNs && (gapAfter < 0 || gapBefore <= gapAfter)) p.owner = p.before;
      else if (gapAfter >= 0 && gapAfter <= toleranceNs) p.owner = p.after;
    }
    return p;
  };

  KernelAttribution out;
  for (const auto& r : activity) {
    if (!r.onDevice) continue;
    KernelEvent k;
    k.name = r.name;
    k.startNs = r.startNs;
    k.durationNs = std::max<qint64>(0, r.endNs - r.startNs);
    k.stream = r.stream;
    const auto launch = launchOf.constFind(r.correlation);
    if (spans.isEmpty()) {
      ++out.unattributed;
      out.kernels << k;
      continue;
    }
    Place place;
    if (launch != launchOf.constEnd()) {
      k.launchNs = *launch;
      place = placeOf(*launch);
    } else {
      // No call recorded with its id: the op that made both neighbouring recorded calls, if one did.
      const auto hi = std::lower_bound(byCorrelation.begin(), byCorrelation.end(), std::pair{r.correlation, qint64(0)});
      if (r.correlation != 0 && hi != byCorrelation.begin() && hi != byCorrelation.end()) {
        place = placeOf((hi - 1)->second);
        if (place.owner != placeOf(hi->second).owner) place.owner = nullptr;
      }
    }
    const OpEvent* owner = place.owner;
    const OpEvent* before = place.before;
    const OpEvent* after = place.after;
    if (owner) {
      k.node = owner->node;
      k.run = owner->run;
    } else {
      ++out.unattributed;
      // Still counted in its run's total: the run of the op before it (or after, before the first).
      if (before) k.run = before->run;
      else if (after) k.run = after->run;
    }
    out.kernels << k;
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const KernelEvent& a, const KernelEvent& b) { return a.startNs < b.startNs; });
  return out;
}

qint64 clockCorrection(const QVector<ActivityRecord>& activity, const QVector<OpEvent>& ops) {
  QVector<const OpEvent*> spans;
  for (const auto& e : ops)
    if (e.depth == 0) spans << &e;
  std::stable_sort(spans.begin(), spans.end(),
                   [](const OpEvent* a, const OpEvent* b) { return a->startNs < b->startNs; });
  QSet<quint64> launched;
  for (const auto& r : activity)
    if (r.onDevice) launched.insert(r.correlation);
  std::vector<qint64> launches;
  for (const auto& r : activity)
    if (!r.onDevice && launched.contains(r.correlation)) launches.push_back(r.startNs);
  if (launches.empty() || spans.isEmpty()) return 0;
  std::sort(launches.begin(), launches.end());
  // At most a few thousand launches judge a shift.
  std::vector<qint64> sample;
  const size_t every = std::max<size_t>(1, launches.size() / 2000);
  for (size_t i = 0; i < launches.size(); i += every) sample.push_back(launches[i]);
  auto inside = [&](qint64 shift) {
    int n = 0;
    for (qint64 l : sample) {
      const qint64 at = l + shift;
      const auto next =
          std::upper_bound(spans.begin(), spans.end(), at, [](qint64 t, const OpEvent* e) { return t < e->startNs; });
      if (next != spans.begin() && at <= (*(next - 1))->startNs + (*(next - 1))->durationNs) ++n;
    }
    return n;
  };
  const int direct = inside(0);
  if (direct * 2 >= int(sample.size())) return 0;
  qint64 best = 0;
  int bestCount = direct;
  const int firstSpans = std::min<int>(64, spans.size());
  for (size_t j = 0; j < std::min<size_t>(8, launches.size()); ++j)
    for (int i = 0; i < firstSpans; ++i) {
      const qint64 shift = spans[i]->startNs + spans[i]->durationNs / 2 - launches[j];
      if (const int n = inside(shift); n > bestCount) {
        bestCount = n;
        best = shift;
      }
    }
  // Refine around the best: steps of a sixteenth of the median span, half a span either way.
  std::vector<qint64> durations;
  for (const auto* e : spans) durations.push_back(e->durationNs);
  std::nth_element(durations.begin(), durations.begin() + durations.size() / 2, durations.end());
  const qint64 step = std::max<qint64>(1, durations[durations.size() / 2] / 16);
  const qint64 centre = best;
  for (int k = -8; k <= 8; ++k)
    if (const int n = inside(centre + k * step); n > bestCount) {
      bestCount = n;
      best = centre + k * step;
    }
  return bestCount > direct ? best : 0;
}

QHash<model::NodeId, QVector<double>> kernelMsPerRun(const QVector<KernelEvent>& kernels, int runs) {
  QHash<model::NodeId, QVector<double>> out;
  for (const auto& k : kernels) {
    if (k.node == model::kNoNode || k.run < 0 || k.run >= runs) continue;
    auto& v = out[k.node];
    if (v.isEmpty()) v.fill(0.0, runs);
    v[k.run] += k.durationNs / 1e6;
  }
  return out;
}

}  // namespace graft::core::profile
