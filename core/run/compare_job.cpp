#include "core/run/compare_job.h"

#include "core/model/job_guard.h"
#include "core/run/compare.h"

#include <torch/cuda.h>
#include <torch/script.h>

#include <cmath>

namespace graft::core::run {

namespace {
CompareRow rowOf(const TensorDiff& d) {
  CompareRow r;
  r.maxAbs = d.maxAbs;
  r.maxRel = d.maxRel;
  r.cosine = d.cosine;
  r.sqnrDb = d.sqnrDb;
  r.scaled = scaledError(d);
  r.mismatched = d.mismatched;
  r.numel = d.numel;
  r.pass = d.allclose;
  r.note = d.note;
  return r;
}

CompareRow rowOf(const NodeDiff& n) {
  CompareRow r = rowOf(n.diff);
  r.node = n.nodeB;
  r.op = n.opA == n.opB ? n.opB : n.opA + QStringLiteral(" → ") + n.opB;
  r.modulePath = n.modulePath;
  r.label = n.modulePath.isEmpty() ? QStringLiteral("<top>") : n.modulePath;
  r.change = n.change;
  if (n.change) r.label += QStringLiteral(" (change %1)").arg(n.change);
  if (n.local) {
    r.hasLocal = true;
    r.localMaxAbs = n.local->maxAbs;
    r.localScaled = scaledLocalError(n);
  }
  return r;
}

// A side's precision from its request text; false with `error` set for an unknown dtype.
bool precisionOf(const QString& dtype, bool autocast, Precision& out, QString& error) {
  out.autocast = autocast;
  if (dtype.isEmpty()) return true;
  out.dtype = precisionDtype(dtype, &error);
  return out.dtype.has_value();
}
// The first channels of a 4-D map, min-max scaled per channel (NaN and Inf show as 0).
void addChannelMaps(const at::Tensor& tensor, TensorStats& st) {
  if (tensor.dim() != 4 || tensor.size(0) < 1 || !(tensor.is_floating_point() || tensor.is_quantized())) return;
  st.channelCount = int(tensor.size(1));
  st.mapHeight = int(tensor.size(2));
  st.mapWidth = int(tensor.size(3));
  const at::Tensor item = asFloat64(tensor[0]).to(torch::kFloat).contiguous();
  for (int c = 0; c < std::min<int>(st.channelCount, kMaxChannelMaps); ++c) {
    at::Tensor map = item[c].nan_to_num(0, 0, 0);
    const float lo = map.min().item<float>(), hi = map.max().item<float>();
    map = hi > lo ? (map - lo) / (hi - lo) : torch::zeros_like(map);
    map = map.contiguous();
    st.channels.push_back(QVector<float>(map.data_ptr<float>(), map.data_ptr<float>() + map.numel()));
  }
}

std::optional<TensorStats> statsGuarded(const CompareSummary& summary, model::NodeId node, bool sideB, int bins);
CompareSummary compareGuarded(const CompareRequest& req, const std::atomic<bool>* cancel);
}  // namespace

model::Diagnostics CompareSummary::diagnostics() const {
  const QString job = QStringLiteral("compare");
  if (cancelled) return {};
  if (!ok) return {model::Diagnostic::error(job, error, {}, errorNode)};
  if (intermediateDivergence)
    return {model::Diagnostic::warning(
        job,
        QStringLiteral("the outputs are equal, but intermediate %1 (%2) is beyond tolerance (max abs %3)")
            .arg(intermediateDivergence->op, intermediateDivergence->label)
            .arg(intermediateDivergence->maxAbs, 0, 'g', 3),
        {}, intermediateDivergence->node)};
  if (equal) return {};
  QString message = QStringLiteral("the outputs differ");
  model::NodeId node = model::kNoNode;
  if (firstDivergence) {
    node = firstDivergence->node;
    message += QStringLiteral("; first divergence at %1 (%2), max abs %3")
                   .arg(firstDivergence->op, firstDivergence->modulePath)
                   .arg(firstDivergence->maxAbs, 0, 'g', 3);
  }
  if (culprit) {
    node = culprit->node;
    message += QStringLiteral("; the error is introduced at %1 (%2), local max abs %3")
                   .arg(culprit->op, culprit->modulePath.isEmpty() ? QStringLiteral("top level") : culprit->modulePath)
                   .arg(culprit->localMaxAbs, 0, 'g', 3);
  }
  return {model::Diagnostic::warning(job, message, {}, node)};
}

void CompareRequest::pairWith(const model::Document& docA, const model::Document& docB) {
  CompareOptions o;
  byStructure = !pairDocuments(docA, *a, docB, *b, o);
  lineageA = o.lineageA;
  lineageB = o.lineageB;
}

bool optionsFor(const CompareRequest& req, CompareOptions& o, QString* error) {
  const auto refuse = [error](const QString& why) {
    *error = why;
    return false;
  };
  if (!req.a || !req.b) return refuse(QStringLiteral("choose two revisions"));
  if (!req.inputs) return refuse(QStringLiteral("give an input spec, e.g. 1x3x224x224:float32"));
  auto devA = Executor::parseDevice(req.deviceA, error);
  auto devB = devA ? Executor::parseDevice(req.deviceB, error) : std::nullopt;
  if (!devA || !devB) return false;
  o.tol = {req.atol, req.rtol, req.elementwise};
  o.deviceA = *devA;
  o.deviceB = *devB;
  if (!precisionOf(req.dtypeA, false, o.precisionA, *error) ||
      !precisionOf(req.dtypeB, req.autocastB, o.precisionB, *error))
    return false;
  if (req.castsAsWritten) o.precisionA.casts = o.precisionB.casts = Casts::AsWritten;
  o.perNode = req.perNode;
  o.matching = req.byStructure ? NodeMatching::ByStructure : NodeMatching::ByProvenance;
  o.lineageA = req.lineageA;
  o.lineageB = req.lineageB;
  return true;
}

CompareSummary runCompare(const CompareRequest& req, const std::atomic<bool>* cancel) {
  return model::guarded([&] { return compareGuarded(req, cancel); }, [](const QString& why) {
    CompareSummary s;
    s.error = QStringLiteral("the comparison failed: %1").arg(why);
    return s;
  });
}

namespace {
CompareSummary compareGuarded(const CompareRequest& req, const std::atomic<bool>* cancel) {
  CompareSummary s;
  CompareOptions o;
  if (!optionsFor(req, o, &s.error)) return s;
  o.cancel = cancel;
  auto result = std::make_shared<CompareResult>(compareRevisions(req.a, req.b, *req.inputs, o));
  if (cancel && cancel->load()) { s.cancelled = true; s.error = QStringLiteral("cancelled"); return s; }
  return summaryOf(std::move(result), req, o);
}
}  // namespace

CompareSummary summaryOf(std::shared_ptr<const CompareResult> result, const CompareRequest& req,
                         const CompareOptions& o) {
  CompareSummary s;
  if (!result->ok) {
    s.error = result->error;
    s.errorNode = result->errorNode;
    s.errorOnB = result->errorOnB;
    return s;
  }
  s.ok = true;
  s.equal = result->equal;
  if (comparesPrecision(o)) s.precisionB = o.precisionB.describe();
  for (size_t i = 0; i < result->outputs.size(); ++i) {
    CompareRow r = rowOf(result->outputs[i]);
    r.label = size_t(req.outputNames.size()) == result->outputs.size()
                  ? QStringLiteral("output %1").arg(req.outputNames[int(i)])
                  : QStringLiteral("output %1").arg(i);
    s.outputs.push_back(r);
  }
  if (result->nodes) {
    for (const auto& n : result->nodes->nodes) s.nodes.push_back(rowOf(n));
    if (const auto* f = result->firstDivergence()) s.firstDivergence = rowOf(*f);
    if (const auto* f = result->intermediateDivergence()) s.intermediateDivergence = rowOf(*f);
    for (const auto& g : result->nodes->changes) s.changes << g.label();
    s.localErrors = result->localErrors;
    if (result->culprit)
      for (const auto& n : result->nodes->nodes)
        if (n.nodeB == result->culprit->nodeB) s.culprit = rowOf(n);
    for (const auto& n : result->nodes->notCompared) {
      if (n.change && n.onB) s.insideChanges.push_back(n.node);
      if (!n.change) ++s.notCompared;
      s.skipped.push_back({n.node, n.op, n.reason, n.change});
    }
  }
  s.detail = std::move(result);
  return s;
}

std::optional<TensorStats> statsFor(const CompareSummary& summary, model::NodeId node, bool sideB, int bins) {
  // Called on the GUI thread: a tensor libtorch cannot summarise shows no statistics.
  return model::guarded([&] { return statsGuarded(summary, node, sideB, bins); },
                        [](const QString&) { return std::optional<TensorStats>(); });
}

namespace {
std::optional<TensorStats> statsGuarded(const CompareSummary& summary, model::NodeId node, bool sideB, int bins) {
  if (!summary.detail) return std::nullopt;
  const auto& run = sideB ? summary.detail->runB : summary.detail->runA;
  if (!run) return std::nullopt;
  // On side A the row's node is B's id: find A's partner through the node comparison.
  model::NodeId id = node;
  if (!sideB && summary.detail->nodes)
    for (const auto& n : summary.detail->nodes->nodes)
      if (n.nodeB == node) id = n.nodeA;
  for (const auto& rec : run->nodes) {
    if (rec.id != id) continue;
    const auto tensors = flattenTensors(rec.outputs);
    if (tensors.empty() || !tensors.front().defined()) return std::nullopt;
    const at::Tensor t = asFloat64(tensors.front()).flatten();
    TensorStats st;
    st.shape = describe(tensors.front()).section(' ', 2);
    st.dtype = describe(tensors.front()).section(' ', 1, 1);
    st.device = QString::fromStdString(tensors.front().device().str());
    addChannelMaps(tensors.front(), st);
    st.numel = t.numel();
    st.nanCount = t.isnan().sum().item<int64_t>();
    st.infCount = t.isinf().sum().item<int64_t>();
    const at::Tensor finite = t.masked_select(t.isfinite());
    if (finite.numel() > 0) {
      st.min = finite.min().item<double>();
      st.max = finite.max().item<double>();
      st.mean = finite.mean().item<double>();
      st.std = finite.numel() > 1 ? finite.std().item<double>() : 0.0;
      st.histLo = st.min;
      st.histHi = st.max > st.min ? st.max : st.min + 1;
      const at::Tensor h = finite.histc(bins, st.histLo, st.histHi);
      for (int i = 0; i < bins; ++i) st.histogram.push_back(h[i].item<double>());
    }
    return st;
  }
  return std::nullopt;
}
}  // namespace

QStringList availablePrecisions() {
  return {QString(), QStringLiteral("float16"), QStringLiteral("bfloat16"), QStringLiteral("float32"),
          QStringLiteral("float64")};
}

std::pair<double, double> defaultTolerance(const QString& dtypeA, const QString& dtypeB) {
  CompareOptions o;
  QString ignored;
  precisionOf(dtypeA, false, o.precisionA, ignored);
  precisionOf(dtypeB, false, o.precisionB, ignored);
  const Tolerance t = run::defaultTolerance(o);
  return {t.atol, t.rtol};
}

QStringList availableDevices() {
  QStringList d{QStringLiteral("cpu")};
  if (Executor::cudaAvailable()) d << QStringLiteral("cuda");
  return d;
}

QStringList localDevices() {
  QStringList d{QStringLiteral("cpu")};
  if (!Executor::cudaAvailable()) return d;
  for (int i = 0; i < int(torch::cuda::device_count()); ++i) d << QStringLiteral("cuda:%1").arg(i);
  return d;
}

}  // namespace graft::core::run
