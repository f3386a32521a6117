#include "core/run/compare.h"

#include "core/model/document.h"
#include "core/model/job_guard.h"
#include "core/model/pair_by_order.h"

#include <torch/script.h>

#include <cmath>
#include <unordered_set>
#include <limits>

namespace graft::core::run {

at::Tensor asFloat64(const at::Tensor& t) {
  at::Tensor cpu = t.detach().to(torch::kCPU);
  // A quantized tensor cannot be cast: its real values are what the model means.
  if (cpu.is_quantized()) cpu = cpu.dequantize();
  return cpu.to(torch::kDouble);
}

namespace {
TensorDiff compareValues(const at::Tensor& aIn, const at::Tensor& bIn, const Tolerance& tol, const at::Tensor& ref,
                         const RoundingModel* rounding, const at::Tensor& refMeasured);
}

TensorDiff compareTensors(const at::Tensor& a, const at::Tensor& b, const Tolerance& tol, const at::Tensor& ref,
                          const RoundingModel* rounding, const at::Tensor& refMeasured) {
  // A pair libtorch cannot compare (an unusual layout or dtype) is a failed row, never a crash.
  return model::guarded([&] { return compareValues(a, b, tol, ref, rounding, refMeasured); }, [&](const QString& why) {
    TensorDiff d;
    d.allclose = false;
    d.numel = std::max(a.defined() ? a.numel() : 0, b.defined() ? b.numel() : 0);
    d.mismatched = d.numel;
    d.maxAbs = d.maxRel = std::numeric_limits<double>::quiet_NaN();
    d.cosine = 0;
    d.sqnrDb = -std::numeric_limits<double>::infinity();
    d.note = d.reason = QStringLiteral("cannot compare %1 with %2: %3").arg(describe(a), describe(b), why);
    return d;
  });
}

namespace {
TensorDiff failedPair(const QString& why) {
  TensorDiff d;
  d.allclose = false;
  d.maxAbs = d.maxRel = std::numeric_limits<double>::infinity();
  d.cosine = 0;
  d.sqnrDb = -std::numeric_limits<double>::infinity();
  d.note = d.reason = why;
  return d;
}

// Floating values (quantized ones dequantized) are judged numerically; integers and bools by
// equality.
bool numeric(const at::Tensor& t) { return t.is_floating_point() || t.is_complex() || t.is_quantized(); }

QString number(double v) { return QString::number(v, 'g', 3); }

// The non-finite place that says most: the one whose finite side is largest ("overflow: B is inf
// where A is 9.3e+05").
QString describeNonFinite(const at::Tensor& a, const at::Tensor& b, const at::Tensor& mask) {
  const at::Tensor finiteMagnitude =
      at::where(a.isfinite(), a.abs(), at::where(b.isfinite(), b.abs(), at::zeros_like(a)));
  const int64_t i = at::where(mask, finiteMagnitude, at::full_like(a, -1)).flatten().argmax().item<int64_t>();
  const double va = a.flatten()[i].item<double>(), vb = b.flatten()[i].item<double>();
  const bool bOff = !std::isfinite(vb) && (std::isfinite(va) || std::isnan(vb));
  const double off = bOff ? vb : va, other = bOff ? va : vb;
  const QString kind = std::isnan(off) ? QStringLiteral("NaN") : QStringLiteral("overflow");
  return QStringLiteral("%1: %2 is %3 where %4 is %5")
      .arg(kind, bOff ? QStringLiteral("B") : QStringLiteral("A"), number(off),
           bOff ? QStringLiteral("A") : QStringLiteral("B"), number(other));
}

// B at float16 or bfloat16 is 0 where A is not, and A is below the smallest value B's dtype holds:
// values lost to underflow, which no tolerance or rounding model speaks of by itself.
QString underflowNote(const at::Tensor& a, const at::Tensor& b, at::ScalarType bType, const at::Tensor& finitePair) {
  if (bType != at::kHalf && bType != at::kBFloat16) return {};
  const double smallest = bType == at::kHalf ? std::ldexp(1.0, -24) : std::ldexp(1.0, -133);  // the subnormal minimum
  const at::Tensor lost = finitePair.logical_and(b == 0).logical_and(a != 0).logical_and(a.abs() < smallest);
  const int64_t n = lost.sum().item<int64_t>();
  if (n == 0) return {};
  return QStringLiteral("; underflow: B is 0 at %1 of %2 places where A (up to %3) is below %4's smallest value, %5")
      .arg(n)
      .arg(a.numel())
      .arg(number(at::where(lost, a.abs(), at::zeros_like(a)).max().item<double>()),
           bType == at::kHalf ? QStringLiteral("float16") : QStringLiteral("bfloat16"), number(smallest));
}

QString sqnrText(double db) {
  return std::isinf(db) ? QString() : QStringLiteral(" (SQNR %1 dB)").arg(db, 0, 'f', 0);
}

TensorDiff compareValues(const at::Tensor& aIn, const at::Tensor& bIn, const Tolerance& tol, const at::Tensor& refIn,
                         const RoundingModel* rounding, const at::Tensor& refMeasured) {
  TensorDiff d;
  if (!aIn.defined() || !bIn.defined()) {  // an optional output that is None
    if (aIn.defined() == bIn.defined()) {
      d.exact = true;
      d.reason = QStringLiteral("both None");
      return d;
    }
    return failedPair(QStringLiteral("one side is None"));
  }
  d.numel = std::max(aIn.numel(), bIn.numel());
  if (aIn.sizes() != bIn.sizes()) {
    TensorDiff f = failedPair(QStringLiteral("shapes differ: %1 vs %2").arg(describe(aIn), describe(bIn)));
    f.numel = f.mismatched = d.numel;
    return f;
  }
  d.integer = !numeric(aIn) && !numeric(bIn);
  if (d.numel == 0) {
    d.exact = true;
    d.reason = QStringLiteral("empty");
    return d;
  }
  // Always in float64, the higher of any two precisions: never A cast down to B.
  const at::Tensor a = asFloat64(aIn);
  const at::Tensor b = asFloat64(bIn);
  const at::Tensor zero = at::zeros_like(a);
  const at::Tensor bothNan = a.isnan().logical_and(b.isnan());
  const at::Tensor same = (a == b).logical_or(bothNan);  // equal infinities (a causal mask's -inf) too
  const at::Tensor finitePair = a.isfinite().logical_and(b.isfinite());
  const at::Tensor nonFinite = same.logical_not().logical_and(finitePair.logical_not());
  d.exact = same.all().item<bool>();
  d.nanBoth = bothNan.sum().item<int64_t>();
  d.nonFinite = nonFinite.sum().item<int64_t>();
  const at::Tensor diff = at::where(finitePair.logical_and(same.logical_not()), (a - b).abs(), zero);
  d.maxAbs = d.nonFinite ? std::numeric_limits<double>::infinity() : diff.max().item<double>();
  const at::Tensor fa = at::where(finitePair, a, zero), fb = at::where(finitePair, b, zero);
  const at::Tensor absB = fb.abs();
  // Relative to the larger side: B flushed to 0 where A is not (float16 underflow) is off by all
  // of A, not by nothing.
  const at::Tensor larger = at::maximum(fa.abs(), absB);
  const at::Tensor nonzero = larger > 0;
  d.maxRel = d.nonFinite ? std::numeric_limits<double>::infinity()
             : nonzero.any().item<bool>()
                 ? (diff.masked_select(nonzero) / larger.masked_select(nonzero)).max().item<double>()
                 : 0.0;
  const double na = fa.norm().item<double>(), nb = fb.norm().item<double>();
  if (na == 0 && nb == 0) d.cosine = 1;
  else if (na == 0 || nb == 0) d.cosine = 0;
  else d.cosine = std::clamp(fa.flatten().dot(fb.flatten()).item<double>() / (na * nb), -1.0, 1.0);
  if (d.nonFinite) d.cosine = std::numeric_limits<double>::quiet_NaN();  // of the finite part only: no answer
  d.refMaxAbs = larger.max().item<double>();
  const double noise = (diff * diff).sum().item<double>();
  const double signal = (fb * fb).sum().item<double>();
  d.sqnrDb = d.nonFinite ? -std::numeric_limits<double>::infinity()
             : noise == 0 ? std::numeric_limits<double>::infinity()
                          : 10 * std::log10(signal / noise);

  const QString nanNote =
      d.nanBoth ? QStringLiteral("; NaN on both sides at the same %1 place(s)").arg(d.nanBoth) : QString();
  if (d.exact) {
    d.reason = QStringLiteral("bit-identical") + nanNote;
    return d;
  }
  if (d.integer) {
    d.mismatched = same.logical_not().sum().item<int64_t>();
    d.allclose = false;
    d.reason = QStringLiteral("%1 of %2 integer values differ").arg(d.mismatched).arg(d.numel);
    return d;
  }
  const QString nonFiniteWhy = d.nonFinite ? describeNonFinite(a, b, nonFinite) : QString();
  const bool judgeRounding = rounding && refIn.defined() && !tol.elementwise && refIn.sizes() == aIn.sizes();
  if (judgeRounding) {
    // A model saved at a lower precision rounds at its own dtype, whatever the sides ask.
    RoundingModel m = *rounding;
    if (aIn.is_floating_point()) {
      m.unitRoundoffA = std::max(m.unitRoundoffA, unitRoundoff(aIn.scalar_type()));
      m.spacingA = std::max(m.spacingA, subnormalSpacing(aIn.scalar_type()));
    }
    if (bIn.is_floating_point())
      for (Explanation& rung : m.ladderB) {
        rung.unitRoundoff = std::max(rung.unitRoundoff, unitRoundoff(bIn.scalar_type()));
        rung.spacing = std::max(rung.spacing, subnormalSpacing(bIn.scalar_type()));
      }
    const RoundingJudgement j =
        run::judgeRounding(a, b, asFloat64(refIn), m, refMeasured.defined() ? asFloat64(refMeasured) : at::Tensor());
    d.errorRatio = j.ratio;
    d.rung = j.rung;
    d.mismatched = (j.within ? 0 : j.beyond) + d.nonFinite;
    d.allclose = j.within && d.nonFinite == 0;
    if (d.nonFinite) d.reason = nonFiniteWhy;
    else if (j.within) d.reason = QStringLiteral("within ") + j.explainedBy + sqnrText(d.sqnrDb);
    else
      d.reason = QStringLiteral("beyond %1: the error is %2x what it explains (max abs %3 at scale %4%5)")
                     .arg(m.ladderB.empty() ? QStringLiteral("rounding") : m.ladderB.back().name)
                     .arg(number(j.ratio), number(d.maxAbs), number(d.refMaxAbs))
                     .arg(d.sqnrDb == -std::numeric_limits<double>::infinity()
                              ? QString()
                              : QStringLiteral(", SQNR %1 dB").arg(d.sqnrDb, 0, 'f', 0)) +
                 underflowNote(a, b, bIn.scalar_type(), finitePair);
    return d;
  }
  // Asked for the rounding model but without a reference value to judge by: say so.
  QString fallback;
  if (rounding && !tol.elementwise)
    fallback = !refIn.defined() ? QStringLiteral(" (judged elementwise: the float64 reference has no such value)")
                                : QStringLiteral(" (judged elementwise: the float64 reference is %1 where A is %2)")
                                      .arg(describe(refIn), describe(aIn));
  // Elementwise, torch.allclose's rule on the finite pairs; non-finite mismatches never pass.
  const at::Tensor within = same.logical_or(finitePair.logical_and(diff <= (tol.atol + tol.rtol * absB)));
  d.mismatched = d.numel - within.sum().item<int64_t>();
  d.allclose = d.mismatched == 0;
  const QString tolText = QStringLiteral("atol %1, rtol %2").arg(number(tol.atol), number(tol.rtol));
  d.reason = d.nonFinite  ? nonFiniteWhy
             : d.allclose ? QStringLiteral("within ") + tolText + sqnrText(d.sqnrDb)
                          : QStringLiteral("%1 of %2 elements beyond %3 (max abs %4)")
                                    .arg(d.mismatched)
                                    .arg(d.numel)
                                    .arg(tolText, number(d.maxAbs)) +
                                underflowNote(a, b, bIn.scalar_type(), finitePair);
  d.reason += fallback;
  return d;
}
void flattenInto(const c10::IValue& v, std::vector<at::Tensor>& out) {
  if (v.isTensor()) out.push_back(v.toTensor());
  else if (v.isTuple()) for (const auto& e : v.toTupleRef().elements()) flattenInto(e, out);
  else if (v.isList()) for (const auto& e : v.toListRef()) flattenInto(e, out);
  else if (v.isGenericDict()) for (const auto& e : v.toGenericDict()) flattenInto(e.value(), out);  // insertion order
  else if (v.isDouble()) out.push_back(torch::scalar_tensor(v.toDouble(), torch::kDouble));
  else if (v.isInt()) out.push_back(torch::scalar_tensor(v.toInt(), torch::kLong));
  else if (v.isBool()) out.push_back(torch::scalar_tensor(v.toBool(), torch::kBool));
}

}  // namespace

TensorDiff worstOf(const std::vector<TensorDiff>& diffs) {
  TensorDiff w;
  std::int64_t numel = 0, mismatched = 0;
  bool first = true;
  std::int64_t nonFinite = 0, nanBoth = 0;
  bool exact = true;
  auto worse = [](const TensorDiff& d, const TensorDiff& w) {
    if (d.allclose != w.allclose) return !d.allclose;
    if ((d.nonFinite > 0) != (w.nonFinite > 0)) return d.nonFinite > 0;
    if (d.rung != w.rung) return d.rung > w.rung;  // TF32 explains more than float32 does
    if (!std::isnan(d.errorRatio) && !std::isnan(w.errorRatio)) return d.errorRatio > w.errorRatio;
    return !(d.maxAbs <= w.maxAbs);
  };
  for (const auto& d : diffs) {
    numel += d.numel;
    mismatched += d.mismatched;
    nonFinite += d.nonFinite;
    nanBoth += d.nanBoth;
    exact = exact && d.exact;
    if (first || worse(d, w)) w = d;
    first = false;
  }
  w.numel = numel;
  w.mismatched = mismatched;
  w.nonFinite = nonFinite;
  w.nanBoth = nanBoth;
  w.exact = exact;
  return w;
}

std::vector<at::Tensor> flattenTensors(const std::vector<c10::IValue>& values) {
  std::vector<at::Tensor> out;
  for (const auto& v : values) flattenInto(v, out);
  return out;
}

std::vector<TensorDiff> compareOutputs(const std::vector<c10::IValue>& a, const std::vector<c10::IValue>& b,
                                       const Tolerance& tol, const std::vector<c10::IValue>* ref,
                                       const RoundingModel* rounding, const std::vector<c10::IValue>* refMeasured) {
  const auto ta = flattenTensors(a), tb = flattenTensors(b);
  const auto tr = ref ? flattenTensors(*ref) : std::vector<at::Tensor>();
  const auto tm = refMeasured ? flattenTensors(*refMeasured) : std::vector<at::Tensor>();
  std::vector<TensorDiff> diffs;
  for (size_t i = 0; i < std::min(ta.size(), tb.size()); ++i)
    diffs.push_back(compareTensors(ta[i], tb[i], tol, tr.size() == ta.size() ? tr[i] : at::Tensor(), rounding,
                                   tm.size() == ta.size() ? tm[i] : at::Tensor()));
  if (ta.size() != tb.size())
    diffs.push_back(failedPair(QStringLiteral("A has %1 output tensor(s), B has %2").arg(ta.size()).arg(tb.size())));
  return diffs;
}

bool isUninitialised(const QString& op) {
  static const QStringList kOps{QStringLiteral("aten::empty"), QStringLiteral("aten::empty_like"),
                                QStringLiteral("aten::new_empty"), QStringLiteral("aten::empty_strided"),
                                QStringLiteral("aten::new_empty_strided"), QStringLiteral("aten::empty_permuted")};
  return kOps.contains(op);
}

namespace {

// Records by node id, each occurrence in execution order (a loop body runs many times).
using Occurrences = std::unordered_map<model::NodeId, std::vector<size_t>>;
Occurrences occurrences(const RunResult& run) {
  Occurrences out;
  for (size_t i = 0; i < run.nodes.size(); ++i) out[run.nodes[i].id].push_back(i);
  return out;
}

struct RecordedDiff {
  TensorDiff diff;  // the floating values' (the integers' when the node has no floating value)
  std::int64_t integerMismatched = 0;
};

// Compares two recorded values; nullopt when neither holds a tensor or number to compare.
// Numeric error is judged on floating values; integer values beside them (max_pool's indices,
// which ties may swap) are counted apart.
std::optional<RecordedDiff> compareRecorded(const std::vector<c10::IValue>& a, const std::vector<c10::IValue>& b,
                                            const Tolerance& tol, const std::vector<c10::IValue>* ref = nullptr,
                                            const RoundingModel* rounding = nullptr,
                                            const std::vector<c10::IValue>* refMeasured = nullptr) {
  if (flattenTensors(a).empty() && flattenTensors(b).empty()) return std::nullopt;
  std::vector<TensorDiff> floating, integers;
  for (TensorDiff& d : compareOutputs(a, b, tol, ref, rounding, refMeasured))
    (d.integer ? integers : floating).push_back(std::move(d));
  RecordedDiff out;
  for (const TensorDiff& d : integers) out.integerMismatched += d.mismatched;
  out.diff = worstOf(floating.empty() ? integers : floating);
  return out;
}

// A's node run locally at B's precision and device, against A's own outputs (reference side).
std::optional<TensorDiff> localDiff(const NodeRecord& ra, const Tolerance& tol) {
  if (!ra.localError.isEmpty()) {
    TensorDiff d;
    d.allclose = false;
    d.maxAbs = d.maxRel = std::numeric_limits<double>::infinity();
    d.cosine = 0;
    d.sqnrDb = -std::numeric_limits<double>::infinity();
    d.note = QStringLiteral("the node fails at the other precision: ") + ra.localError;
    return d;
  }
  if (ra.localOutputs.empty()) return std::nullopt;
  auto d = compareRecorded(ra.localOutputs, ra.outputs, tol);
  if (!d || d->diff.integer) return std::nullopt;  // numeric error lives in floating values only
  return d->diff;
}

// A row of two recorded nodes (and A's float64 reference record, when there is one).
NodeDiff row(const NodeRecord& ra, const NodeRecord& rb, const RecordedDiff& d, const QString& modulePath, int change,
             const Tolerance& tol) {
  NodeDiff n{ra.id, rb.id, ra.op, rb.op, modulePath, d.diff, change, localDiff(ra, tol)};
  n.integerMismatched = d.integerMismatched;
  n.writtenLater = ra.writtenLater;
  return n;
}

// A reference run of A's revision (at float64, or with TF32 emulated), record by record: the
// reference of A's nth run of a node is the reference's nth run of it.
class ReferenceRecords {
 public:
  ReferenceRecords(const RunResult& a, const RunResult* ref) {
    if (!ref) return;
    const Occurrences inRef = occurrences(*ref);
    std::unordered_map<model::NodeId, size_t> seen;  // runs of each node so far in A
    byA_.reserve(a.nodes.size());
    for (const NodeRecord& r : a.nodes) {
      const size_t nth = seen[r.id]++;
      auto it = inRef.find(r.id);
      byA_.push_back(it != inRef.end() && nth < it->second.size() ? &ref->nodes[it->second[nth]].outputs : nullptr);
    }
  }
  // The reference's outputs for A's record `ia` (null without a reference or when it did not run
  // that node then).
  const std::vector<c10::IValue>* outputs(size_t ia) const { return ia < byA_.size() ? byA_[ia] : nullptr; }

 private:
  std::vector<const std::vector<c10::IValue>*> byA_;
};

NodeComparison compareByProvenance(const RunResult& a, const model::Revision& revA, const RunResult& b,
                                   const model::Revision& revB, const Tolerance& tol, const model::Lineage& la,
                                   const model::Lineage& lb, const RunResult* ref, const RoundingModel* rounding,
                                   const RunResult* refMeasured) {
  NodeComparison result;
  const Correspondence c = correspond(revA, la, revB, lb);
  const Occurrences inA = occurrences(a), inB = occurrences(b);
  const ReferenceRecords refs(a, ref), measured(a, refMeasured);
  std::vector<std::pair<size_t, NodeDiff>> rows;  // keyed by A's record index
  auto skip = [&](const NodeRecord& r, bool onB, int change, QString why) {
    result.notCompared.push_back({r.id, r.op, r.modulePath, onB, change, std::move(why)});
  };

  for (size_t ia = 0; ia < a.nodes.size(); ++ia) {
    const NodeRecord& ra = a.nodes[ia];
    auto partner = c.bOfA.find(ra.id);
    if (partner == c.bOfA.end()) continue;
    auto occB = inB.find(partner->second);
    const auto& occA = inA.at(ra.id);
    const size_t nth = size_t(std::find(occA.begin(), occA.end(), ia) - occA.begin());
    if (occB == inB.end() || nth >= occB->second.size()) continue;  // B did not run it (that often)
    const NodeRecord& rb = b.nodes[occB->second[nth]];
    if (isUninitialised(ra.op)) {
      skip(ra, false, 0, QStringLiteral("uninitialised memory"));
      continue;
    }
    auto diff = compareRecorded(ra.outputs, rb.outputs, tol, refs.outputs(ia), rounding, measured.outputs(ia));
    if (!diff) {
      skip(ra, false, 0, QStringLiteral("no tensor or number to compare"));
      continue;
    }
    rows.push_back({ia, row(ra, rb, *diff, ra.modulePath, 0, tol)});
  }

  for (const ChangeGroup& g : c.groups) {
    result.changes.push_back(g);
    std::unordered_set<model::NodeId> exitA, exitB;
    for (const ExitPair& e : g.exits) {
      exitA.insert(e.a);
      exitB.insert(e.b);
      auto oa = inA.find(e.a);
      auto ob = inB.find(e.b);
      if (oa == inA.end() || ob == inB.end()) continue;  // in a branch that did not run
      const NodeRecord& ra = a.nodes[oa->second.front()];
      const NodeRecord& rb = b.nodes[ob->second.front()];
      if (size_t(e.outA) >= ra.outputs.size() || size_t(e.outB) >= rb.outputs.size()) continue;
      if (isUninitialised(ra.op) || isUninitialised(rb.op)) {
        skip(rb, true, g.number, QStringLiteral("uninitialised memory"));
        continue;
      }
      // The exit's own output of each reference run.
      const auto exitOf = [&](const std::vector<c10::IValue>* outputs) {
        return outputs && size_t(e.outA) < outputs->size() ? std::vector<c10::IValue>{(*outputs)[size_t(e.outA)]}
                                                            : std::vector<c10::IValue>{};
      };
      const auto refExit = exitOf(refs.outputs(oa->second.front()));
      const auto measuredExit = exitOf(measured.outputs(oa->second.front()));
      auto diff = compareRecorded({ra.outputs[size_t(e.outA)]}, {rb.outputs[size_t(e.outB)]}, tol,
                                  refExit.empty() ? nullptr : &refExit, rounding,
                                  measuredExit.empty() ? nullptr : &measuredExit);
      if (!diff) continue;
      rows.push_back({oa->second.front(), row(ra, rb, *diff, rb.modulePath, g.number, tol)});
    }
    auto inside = [&](const std::vector<model::NodeId>& ids, const std::unordered_set<model::NodeId>& exits,
                      const Occurrences& occ, const RunResult& run, bool onB) {
      for (model::NodeId id : ids) {
        if (exits.count(id)) continue;
        auto o = occ.find(id);
        if (o == occ.end()) continue;
        skip(run.nodes[o->second.front()], onB, g.number, QStringLiteral("inside %1").arg(g.label()));
      }
    };
    inside(g.a, exitA, inA, a, false);
    inside(g.b, exitB, inB, b, true);
  }

  std::stable_sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [index, row] : rows) {
    if (!row.diff.allclose && !result.firstBeyond) result.firstBeyond = row;
    result.nodes.push_back(std::move(row));
  }
  return result;
}

NodeComparison compareByStructure(const RunResult& a, const model::Revision& revA, const RunResult& b,
                                  const model::Revision& revB, const Tolerance& tol, const RunResult* ref,
                                  const RoundingModel* rounding, const RunResult* refMeasured) {
  const ReferenceRecords refs(a, ref), measured(a, refMeasured);
  const size_t na = a.nodes.size(), nb = b.nodes.size();
  std::vector<int> partnerOfA(na, -1), partnerOfB(nb, -1);
  std::unordered_map<model::NodeId, size_t> indexA, indexB;
  for (size_t i = 0; i < na; ++i) indexA[a.nodes[i].id] = i;
  for (size_t i = 0; i < nb; ++i) indexB[b.nodes[i].id] = i;
  auto pair = [&](size_t ia, size_t ib) { partnerOfA[ia] = int(ib); partnerOfB[ib] = int(ia); };

  // Module path, op and order of occurrence. Executed nodes only, so loops that ran a
  // different number of times stay comparable up to where they part.
  auto keys = [](const std::vector<NodeRecord>& nodes) {
    std::vector<QString> out;
    for (const auto& r : nodes) out.push_back(r.modulePath + QLatin1Char('|') + r.op);
    return out;
  };
  model::pairByOrder(keys(a.nodes), keys(b.nodes), partnerOfA, partnerOfB);

  // Pair leftovers through their consumers, last first so chains of new nodes resolve.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t ib = nb; ib-- > 0;) {
      if (partnerOfB[ib] >= 0) continue;
      const torch::jit::Node* nodeB = revB.nodeOf(b.nodes[ib].id);
      if (!nodeB) continue;
      for (size_t k = 0; k < nodeB->outputs().size() && partnerOfB[ib] < 0; ++k) {
        for (const auto& use : nodeB->outputs()[k]->uses()) {
          const torch::jit::Node* userA = nullptr;
          if (use.user == revB.graph()->return_node()) userA = revA.graph()->return_node();
          else if (auto it = indexB.find(revB.idOf(use.user)); it != indexB.end() && partnerOfB[it->second] >= 0)
            userA = revA.nodeOf(a.nodes[partnerOfB[it->second]].id);
          if (!userA || use.offset >= userA->inputs().size()) continue;
          const torch::jit::Node* producerA = userA->inputs()[use.offset]->node();
          auto pa = indexA.find(revA.idOf(producerA));
          if (pa == indexA.end() || partnerOfA[pa->second] >= 0) continue;
          pair(pa->second, ib);
          changed = true;
          break;
        }
      }
    }
  }

  NodeComparison result;
  for (size_t ia = 0; ia < na; ++ia) {
    const NodeRecord& ra = a.nodes[ia];
    if (partnerOfA[ia] < 0) { result.unmatchedA.push_back(&ra); continue; }
    const NodeRecord& rb = b.nodes[partnerOfA[ia]];
    if (isUninitialised(ra.op) || isUninitialised(rb.op)) {
      result.notCompared.push_back({ra.id, ra.op, ra.modulePath, false, 0, QStringLiteral("uninitialised memory")});
      continue;
    }
    auto diff = compareRecorded(ra.outputs, rb.outputs, tol, refs.outputs(ia), rounding, measured.outputs(ia));
    if (!diff) {
      result.notCompared.push_back(
          {ra.id, ra.op, ra.modulePath, false, 0, QStringLiteral("no tensor or number to compare")});
      continue;
    }
    NodeDiff nd = row(ra, rb, *diff, ra.modulePath, 0, tol);
    if (!nd.diff.allclose && !result.firstBeyond) result.firstBeyond = nd;
    result.nodes.push_back(std::move(nd));
  }
  for (size_t ib = 0; ib < nb; ++ib)
    if (partnerOfB[ib] < 0) result.unmatchedB.push_back(&b.nodes[ib]);
  return result;
}

}  // namespace

NodeComparison compareNodes(const RunResult& a, const model::Revision& revA, const RunResult& b,
                            const model::Revision& revB, NodeMatching matching, const Tolerance& tol,
                            const model::Lineage* la, const model::Lineage* lb, const RunResult* ref,
                            const RoundingModel* rounding, const RunResult* refMeasured) {
  if (matching == NodeMatching::ByStructure)
    return compareByStructure(a, revA, b, revB, tol, ref, rounding, refMeasured);
  return compareByProvenance(a, revA, b, revB, tol, la ? *la : revA.lineage(), lb ? *lb : revB.lineage(), ref, rounding,
                             refMeasured);
}

CompareResult::Verdict CompareResult::verdict() const {
  if (!equal) return Verdict::OutputsDiffer;
  return nodes && nodes->firstBeyond ? Verdict::OutputsEqualIntermediateDiffers : Verdict::Equal;
}

CompareResult::Agreement CompareResult::agreement() const {
  if (verdict() != Verdict::Equal) return Agreement::Different;
  if (exact) return Agreement::Exact;
  return roundingJudged ? Agreement::WithinRounding : Agreement::WithinTolerance;
}

bool pairDocuments(const model::Document& a, const model::Revision& revA, const model::Document& b,
                   const model::Revision& revB, CompareOptions& options) {
  auto shared = model::sharedRootLineages(a, revA, b, revB);
  if (!shared) {
    options.matching = NodeMatching::ByStructure;
    return false;
  }
  options.matching = NodeMatching::ByProvenance;
  options.lineageA = std::make_shared<const model::Lineage>(std::move(shared->a));
  options.lineageB = std::make_shared<const model::Lineage>(std::move(shared->b));
  return true;
}

std::pair<RunOptions, RunOptions> sideRunOptions(const CompareOptions& options) {
  RunOptions a, b;
  a.device = options.deviceA;
  b.device = options.deviceB;
  a.precision = options.precisionA;
  b.precision = options.precisionB;
  // --tf32 on/off switches CUDA sides; emulation stands B in for a CUDA run on any device.
  const bool emulate = options.tf32 == Tf32::Emulate;
  a.precision.tf32 = a.device.is_cuda() && !emulate ? options.tf32 : Tf32::Default;
  b.precision.tf32 = emulate || b.device.is_cuda() ? options.tf32 : Tf32::Default;
  a.cancel = b.cancel = options.cancel;
  return {a, b};
}

bool comparesPrecision(const CompareOptions& options) {
  const auto [a, b] = sideRunOptions(options);
  return a.device != b.device || a.precision.describe() != b.precision.describe();
}

namespace {
// Whether a side's float32 convolutions or matrix products round to TF32 in its run.
bool roundsToTf32(const RunOptions& side, bool convolutions, bool products) {
  switch (side.precision.tf32) {
    case Tf32::Emulate: return convolutions || products;
    case Tf32::Off: return false;
    case Tf32::On: return side.device.is_cuda() && (convolutions || products);
    case Tf32::Default: return side.device.is_cuda() && convolutions;  // cuDNN allows TF32 by default, cuBLAS not
  }
  return false;
}

// Whether a side may round to TF32 at all (the culprit's noise floor; no graph at hand).
bool mayRoundToTf32(const RunOptions& side) { return roundsToTf32(side, true, side.precision.tf32 != Tf32::Default); }

double sideUnitRoundoff(const RunOptions& side, bool tf32) {
  const double u = unitRoundoff(side.precision.dtype.value_or(c10::kFloat));
  return tf32 ? std::max(u, kTf32UnitRoundoff) : u;
}

// The larger unit roundoff of the two sides' arithmetic (a model's own: float32).
double lowerUnitRoundoff(const CompareOptions& options) {
  const auto [a, b] = sideRunOptions(options);
  return std::max(sideUnitRoundoff(a, mayRoundToTf32(a)), sideUnitRoundoff(b, mayRoundToTf32(b)));
}

QString dtypeRounding(const RunOptions& side) {
  return dtypeName(side.precision.dtype.value_or(c10::kFloat)) + QStringLiteral(" rounding");
}

QString tf32Rounding(Tf32 mode) {
  switch (mode) {
    case Tf32::Emulate: return QStringLiteral("emulated TF32 rounding (--tf32 emulate)");
    case Tf32::On: return QStringLiteral("TF32 rounding (--tf32 on)");
    default: return QStringLiteral("TF32 rounding (cuDNN's TF32 convolutions on CUDA, PyTorch's default)");
  }
}

void opsRoundedByTf32(const torch::jit::Block* block, bool& convolutions, bool& products) {
  for (const torch::jit::Node* n : block->nodes()) {
    const QString op = QString::fromLatin1(n->kind().toQualString());
    if (tf32Rounds(op)) (op.contains(QLatin1String("conv")) ? convolutions : products) = true;
    for (const torch::jit::Block* b : n->blocks()) opsRoundedByTf32(b, convolutions, products);
  }
}
}  // namespace

RoundingModel roundingModel(const CompareOptions& options, const model::Revision& revA, const model::Revision& revB) {
  const auto [a, b] = sideRunOptions(options);
  bool convA = false, productsA = false, convB = false, productsB = false;
  opsRoundedByTf32(revA.graph()->block(), convA, productsA);
  opsRoundedByTf32(revB.graph()->block(), convB, productsB);
  RoundingModel m;
  m.unitRoundoffA = sideUnitRoundoff(a, roundsToTf32(a, convA, productsA));
  m.spacingA = subnormalSpacing(a.precision.dtype.value_or(c10::kFloat));
  const double uB = sideUnitRoundoff(b, false);
  m.ladderB.push_back({uB, dtypeRounding(b), false, subnormalSpacing(b.precision.dtype.value_or(c10::kFloat))});
  if (roundsToTf32(b, convB, productsB) && kTf32UnitRoundoff > uB)
    m.ladderB.push_back({kTf32UnitRoundoff, tf32Rounding(b.precision.tf32), /*measured=*/true});
  return m;
}

Tolerance defaultTolerance(const CompareOptions& options) {
  const double u = lowerUnitRoundoff(options);
  if (u >= unitRoundoff(c10::kBFloat16)) return {1e-5, 1.6e-2};
  if (u >= unitRoundoff(c10::kHalf)) return {1e-5, 1e-3};
  return {};
}

Tolerance elementwiseTolerance(double atol, double rtol) { return {atol, rtol, true}; }

double noiseFloor(const CompareOptions& options) { return culpritNoiseFloor(lowerUnitRoundoff(options)); }

const NodeDiff* CompareResult::firstDivergence() const {
  return !equal && nodes && nodes->firstBeyond ? &*nodes->firstBeyond : nullptr;
}

const NodeDiff* CompareResult::intermediateDivergence() const {
  return equal && nodes && nodes->firstBeyond ? &*nodes->firstBeyond : nullptr;
}

namespace {
CompareResult compareGuarded(model::RevisionPtr revA, model::RevisionPtr revB, const InputSet& inputs,
                             const CompareOptions& options);
}

model::Diagnostics CompareResult::diagnostics() const {
  const QString job = QStringLiteral("compare");
  if (!ok) return {model::Diagnostic::error(job, error, {}, errorNode)};
  if (const NodeDiff* f = intermediateDivergence())
    return {model::Diagnostic::warning(
        job,
        QStringLiteral("the outputs are equal, but intermediate %1 (%2) is beyond tolerance (max abs %3)")
            .arg(f->opB, f->modulePath)
            .arg(f->diff.maxAbs, 0, 'g', 3),
        {}, f->nodeB)};
  if (equal) return {};
  std::int64_t mismatched = 0;
  for (const auto& o : outputs) mismatched += o.mismatched;
  QString message = QStringLiteral("the outputs differ (%1 elements beyond tolerance)").arg(mismatched);
  model::NodeId node = model::kNoNode;
  if (const NodeDiff* f = firstDivergence()) {
    node = f->nodeB;
    message += QStringLiteral("; first divergence at %1 (%2), max abs %3")
                   .arg(f->opB, f->modulePath)
                   .arg(f->diff.maxAbs, 0, 'g', 3);
  }
  if (culprit) {
    node = culprit->nodeB;
    message += QStringLiteral("; the error is introduced at %1 (%2), local max abs %3")
                   .arg(culprit->op, culprit->modulePath.isEmpty() ? QStringLiteral("top level") : culprit->modulePath)
                   .arg(culprit->localMaxAbs, 0, 'g', 3);
  }
  return {model::Diagnostic::warning(job, message, {}, node)};
}

CompareResult compareRevisions(model::RevisionPtr revA, model::RevisionPtr revB, const InputSet& inputs,
                               const CompareOptions& options) {
  return model::guarded([&] { return compareGuarded(revA, revB, inputs, options); }, [](const QString& why) {
    CompareResult failed;
    failed.error = QStringLiteral("the comparison failed: %1").arg(why);
    return failed;
  });
}

namespace {
// A's float64 reference: A's revision on the CPU with its floating weights and inputs at float64.
RunOptions referenceRun(const CompareOptions& options, bool keepIntermediates) {
  RunOptions r;
  r.precision.dtype = c10::kDouble;
  r.instrumented = true;
  r.keepIntermediates = keepIntermediates;
  r.cancel = options.cancel;
  return r;
}

// A at its own precision on the CPU with TF32 emulated: what TF32 rounding does to this model,
// measured (the TF32 rung of the rounding model).
RunOptions tf32Run(const CompareOptions& options, bool keepIntermediates) {
  RunOptions r = referenceRun(options, keepIntermediates);
  r.precision = options.precisionA;
  r.precision.tf32 = Tf32::Emulate;
  return r;
}

bool hasMeasuredRung(const RoundingModel& m) {
  return std::any_of(m.ladderB.begin(), m.ladderB.end(), [](const Explanation& e) { return e.measured; });
}

// The verdict's one line, from the same diffs as everything else.
QString verdictReason(const CompareResult& r) {
  const TensorDiff outputs = worstOf(r.outputs);
  if (r.exact) return outputs.reason;
  QString why = outputs.reason;
  if (const NodeDiff* f = r.intermediateDivergence())
    why = QStringLiteral("outputs %1; intermediate %2 at %3 is not: %4")
              .arg(outputs.reason, f->opB, f->modulePath.isEmpty() ? QStringLiteral("<top>") : f->modulePath,
                   f->diff.reason);
  if (!r.roundingJudged && !r.referenceError.isEmpty())
    why += QStringLiteral(" (judged elementwise: no float64 reference, %1)").arg(r.referenceError);
  return why;
}

CompareResult compareGuarded(model::RevisionPtr revA, model::RevisionPtr revB, const InputSet& inputs,
                             const CompareOptions& options) {
  CompareResult result;
  Executor ea(revA), eb(revB);
  auto [oa, ob] = sideRunOptions(options);
  const auto fail = [&result](const RunResult& run, bool onB) {
    result.error = (onB ? QStringLiteral("B: ") : QStringLiteral("A: ")) + run.error.headline();
    result.errorNode = run.error.node;
    result.errorOnB = onB;
    result.ok = false;
    return result;
  };
  RunResult ra = ea.run(inputs, oa);
  if (!ra.ok) return fail(ra, false);
  RunResult rb = eb.run(inputs, ob);
  if (!rb.ok) return fail(rb, true);
  result.outputs = compareOutputs(ra.outputs, rb.outputs, options.tol);
  result.exact = std::all_of(result.outputs.begin(), result.outputs.end(), [](const TensorDiff& d) { return d.exact; });
  const RoundingModel rounding = roundingModel(options, *revA, *revB);
  const bool judgeRounding = !options.tol.elementwise && !result.exact;
  std::optional<RunResult> ref, measured;
  auto runReference = [&](bool keepIntermediates) {
    ref.reset();
    measured.reset();
    RunResult r = ea.run(inputs, referenceRun(options, keepIntermediates));
    if (r.ok) ref = std::move(r);
    else result.referenceError = r.error.headline();
    if (!ref || !hasMeasuredRung(rounding)) return;
    RunResult m = ea.run(inputs, tf32Run(options, keepIntermediates));
    if (m.ok) measured = std::move(m);
  };
  if (judgeRounding) runReference(options.perNode);
  if (ref) {
    result.outputs = compareOutputs(ra.outputs, rb.outputs, options.tol, &ref->outputs, &rounding,
                                    measured ? &measured->outputs : nullptr);
    result.roundingJudged = true;
  }
  result.equal =
      std::all_of(result.outputs.begin(), result.outputs.end(), [](const TensorDiff& d) { return d.allclose; });
  result.ok = true;
  if (result.equal && !options.perNode) {
    result.reason = verdictReason(result);
    // Kept for what they say (a device remapped, dtype asserts relaxed), with no records.
    result.runA = std::make_shared<RunResult>(std::move(ra));
    result.runB = std::make_shared<RunResult>(std::move(rb));
    return result;
  }
  // Intermediates: run both again node by node, keeping every op node's outputs.
  ra = {}; rb = {};
  oa.instrumented = ob.instrumented = true;
  oa.keepIntermediates = ob.keepIntermediates = true;
  result.localErrors = comparesPrecision(options);
  if (result.localErrors) oa.local = LocalRun{ob.device, ob.precision};
  ra = ea.run(inputs, oa);
  rb = eb.run(inputs, ob);
  if (!ra.ok) return fail(ra, false);
  if (!rb.ok) return fail(rb, true);
  if (!options.tol.elementwise && (!ref || ref->nodes.empty())) runReference(true);
  const bool perNodeRounding = ref && !options.tol.elementwise;
  result.nodes =
      compareNodes(ra, *revA, rb, *revB, options.matching, options.tol, options.lineageA.get(), options.lineageB.get(),
                   perNodeRounding ? &*ref : nullptr, perNodeRounding ? &rounding : nullptr,
                   perNodeRounding && measured ? &*measured : nullptr);
  if (result.localErrors && result.verdict() != CompareResult::Verdict::Equal)
    result.culprit = findCulprit(result.nodes->nodes, noiseFloor(options));
  result.reason = verdictReason(result);
  // NodeComparison points into the runs' records: keep them alive with the result.
  result.runA = std::make_shared<RunResult>(std::move(ra));
  result.runB = std::make_shared<RunResult>(std::move(rb));
  return result;
}
}  // namespace

}  // namespace graft::core::run
