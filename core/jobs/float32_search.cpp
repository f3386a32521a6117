#include "core/jobs/float32_search.h"

#include "core/model/job_guard.h"
#include "core/rewrite/keep_float32.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <unordered_set>

namespace graft::core::jobs {

using namespace run;

namespace {

double maxAbsOf(const std::vector<c10::IValue>& values) {
  double out = 0;
  for (const auto& v : values)
    if (v.isTensor() && v.toTensor().defined() && v.toTensor().is_floating_point() && v.toTensor().numel() > 0)
      out = std::max(out, v.toTensor().abs().max().item<double>());
  return out;
}

// Why no node kept in float32 helps when `dtype`'s range is the cause: the reference's values
// first leave it at some node and its outputs end beyond it, which no float16 output can hold.
// Empty when the reference stays within the range.
QString rangeCause(const RunResult& reference, c10::ScalarType dtype) {
  const QString name = dtypeName(dtype);
  const double largest = largestFinite(dtype);
  const double outputs = maxAbsOf(reference.outputs);
  if (outputs <= largest) return {};
  QString first;
  for (const NodeRecord& r : reference.nodes) {
    const double m = maxAbsOf(r.outputs);
    if (m <= largest) continue;
    first = QStringLiteral("; its values first leave that range at %1%2 (%3)")
                .arg(r.op, r.modulePath.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(r.modulePath))
                .arg(m, 0, 'g', 3);
    break;
  }
  return QStringLiteral("%1's range is the cause: the model's outputs reach %2, beyond %1's largest value %3%4. "
                        "No %1 run can hold them, whatever is kept in float32: keep the outputs in float32 "
                        "(autocast), use bfloat16 (float32's range), or scale the values down")
      .arg(name)
      .arg(outputs, 0, 'g', 3)
      .arg(largest, 0, 'g', 5)
      .arg(first);
}

}  // namespace

Float32Search findFloat32Nodes(const model::RevisionPtr& rev, const InputSet& inputs, const CompareOptions& options,
                               model::NodeIdSource& ids, const CheckOnB& checkOnB) {
  return model::guarded([&]() -> Float32Search {
    Float32Search result;
    const auto lower = options.precisionB.dtype;
    if (!lower || (*lower != c10::kHalf && *lower != c10::kBFloat16)) {
      result.error = QStringLiteral("precision bisection needs a float16 or bfloat16 side (--dtype-b)");
      return result;
    }
    CompareOptions outputsOnly = options;
    outputsOnly.perNode = false;
    const auto check = [&](const model::RevisionPtr& b) {
      return checkOnB ? checkOnB(b) : compareRevisions(rev, b, inputs, outputsOnly);
    };
    if (checkOnB) {  // the verdict where B runs decides whether anything needs float32
      const CompareResult there = check(rev);
      result.runs = 1;
      if (!there.ok) {
        result.error = there.error;
        return result;
      }
      result.before = worstOf(there.outputs);
      if (there.equal) {
        result.ok = result.passesAlready = true;
        return result;
      }
    }
    CompareOptions full = options;
    full.perNode = true;  // local errors rank the nodes
    const CompareResult first = compareRevisions(rev, rev, inputs, full);
    ++result.runs;
    if (!first.ok) {
      result.error = first.error;
      return result;
    }
    if (!checkOnB) {
      result.before = worstOf(first.outputs);
      if (first.equal) {
        result.ok = result.passesAlready = true;
        return result;
      }
    }
    // Which values hold floating tensors, from the reference run.
    rewrite::FloatingValues& floating = result.floating;
    for (const NodeRecord& r : first.runA->nodes) {
      for (size_t k = 0; k < r.outputs.size(); ++k)
        if (r.outputs[k].isTensor() && r.outputs[k].toTensor().is_floating_point()) floating.insert({r.id, int(k)});
    }
    for (size_t i = 0; i < inputs.values.size(); ++i)
      if (inputs.values[i].isTensor() && inputs.values[i].toTensor().is_floating_point())
        floating.insert({model::kNoNode, int(i + 1)});

    if (options.precisionB.autocast) result.stored.keptAt = c10::kDouble;
    else if (rev->frozen()) result.stored.programDtype = lower;

    std::vector<std::pair<double, model::NodeId>> ranking;
    for (const NodeDiff& row : first.nodes->nodes)
      if (const double e = scaledLocalError(row); e > 0) ranking.push_back({e, row.nodeA});
    std::stable_sort(ranking.begin(), ranking.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    result.ranked = int(ranking.size());

    model::RevisionPtr lastPassing;
    TensorDiff lastWorst;
    const auto passes = [&](const std::unordered_set<model::NodeId>& keep) {
      QString why;
      auto mixed = rewrite::keepInFloat32(*rev, keep, floating, ids, &why, result.stored);
      if (!mixed) return false;
      ++result.runs;
      const CompareResult r = check(mixed);
      if (!r.ok || !r.equal) return false;
      lastPassing = mixed;
      lastWorst = worstOf(r.outputs);
      return true;
    };
    const auto top = [&](size_t k) {
      std::unordered_set<model::NodeId> s;
      for (size_t i = 0; i < k && i < ranking.size(); ++i) s.insert(ranking[i].second);
      return s;
    };
    if (ranking.empty() || !passes(top(ranking.size()))) {
      result.noKeepSet = true;
      result.error = rangeCause(*first.runA, *lower);
      if (result.error.isEmpty())
        result.error = QStringLiteral("even with every node in float32 the outputs stay different (%1): "
                                      "the difference does not come from the nodes' precision")
                           .arg(first.reason);
      return result;
    }
    size_t lo = 0, hi = ranking.size();  // top(lo) fails (nothing kept fails), top(hi) passes
    while (hi - lo > 1) {
      const size_t mid = lo + (hi - lo) / 2;
      if (passes(top(mid))) hi = mid;
      else lo = mid;
    }
    std::unordered_set<model::NodeId> keep = top(hi);
    // Drop again, least local error first, whatever still passes without.
    for (size_t i = hi; i-- > 0;) {
      if (keep.size() == 1) break;
      auto without = keep;
      without.erase(ranking[i].second);
      if (passes(without)) keep = std::move(without);
    }
    if (!passes(keep)) {  // leaves lastPassing and lastWorst at the answer
      result.error = QStringLiteral("the float32 nodes found do not pass when checked again");
      return result;
    }
    result.revision = lastPassing;
    result.after = lastWorst;
    for (model::NodeId id : rev->nodeIds())
      if (keep.count(id)) result.nodes.push_back(id);
    result.ok = true;
    return result;
  }, [](const QString& why) {
    Float32Search failed;
    failed.error = QStringLiteral("precision bisection failed: %1").arg(why);
    return failed;
  });
}

}  // namespace graft::core::jobs
