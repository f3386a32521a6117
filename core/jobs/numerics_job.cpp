#include "core/jobs/numerics_job.h"

#include "core/io/pt2_export.h"
#include "core/model/job_guard.h"
#include "core/jobs/float32_search.h"
#include "core/run/module_error.h"
#include "core/run/reduce.h"

namespace graft::core::jobs {

using namespace run;

ReduceSummary runReduce(const CompareRequest& request, model::NodeIdSource ids) {
  return model::guarded([&]() -> ReduceSummary {
    ReduceSummary s;
    CompareOptions o;
    if (!optionsFor(request, o, &s.error)) return s;
    if (request.a != request.b) {
      s.error = QStringLiteral("reduce compares one revision with itself: choose the same revision for A and B");
      return s;
    }
    if (!comparesPrecision(o)) {
      s.error = QStringLiteral("both sides run the same way: choose another precision or device for B");
      return s;
    }
    auto result = std::make_shared<ReduceResult>(reduceFailure(request.a, *request.inputs, o, ids));
    s.runs = result->runs;
    s.nothingFails = result->nothingFails;
    if (!result->ok) {
      s.error = result->error;
      return s;
    }
    s.ok = true;
    s.nodes = QVector<model::NodeId>(result->nodes.begin(), result->nodes.end());
    s.failing = result->failing;
    s.failingOp = request.a->kindOf(result->failing);
    s.failingPath = request.a->modulePathOf(result->failing);
    s.failingMaxAbs = result->failure.maxAbs;
    s.boundary = result->boundaryNames;
    s.detail = result;
    return s;
  }, [](const QString& why) {
    ReduceSummary failed;
    failed.error = QStringLiteral("reduce failed: %1").arg(why);
    return failed;
  });
}

QString saveReduced(const ReduceSummary& summary, const QString& path) {
  if (!summary.ok || !summary.detail) return QStringLiteral("there is no reduced subgraph to save");
  const auto saved = io::savePt2Program(summary.detail->subgraph, path, summary.detail->boundary);
  return saved.ok ? QString() : saved.error;
}

Float32Summary runFloat32Search(const CompareRequest& request, model::NodeIdSource ids) {
  return model::guarded([&]() -> Float32Summary {
    Float32Summary s;
    CompareOptions o;
    if (!optionsFor(request, o, &s.error)) return s;
    if (request.a != request.b) {
      s.error = QStringLiteral("choose the same revision for A and B: B's precision is what changes");
      return s;
    }
    const Float32Search found = findFloat32Nodes(request.a, *request.inputs, o, ids);
    s.runs = found.runs;
    if (!found.ok) {
      s.error = found.error;
      return s;
    }
    s.ok = true;
    s.passesAlready = found.passesAlready;
    s.beforeMaxAbs = found.before.maxAbs;
    s.afterMaxAbs = found.after.maxAbs;
    s.floating = found.floating;
    s.stored = found.stored;
    for (model::NodeId id : found.nodes) {
      s.nodes.insert(id);
      const QString path = request.a->modulePathOf(id);
      s.labels << (path.isEmpty() ? request.a->kindOf(id) : QStringLiteral("%1 (%2)").arg(request.a->kindOf(id), path));
    }
    return s;
  }, [](const QString& why) {
    Float32Summary failed;
    failed.error = QStringLiteral("precision bisection failed: %1").arg(why);
    return failed;
  });
}

QuantErrorSummary runQuantError(model::RevisionPtr quantized, model::RevisionPtr floatTwin, InputsPtr inputs) {
  return model::guarded([&]() -> QuantErrorSummary {
    QuantErrorSummary s;
    if (!quantized || !floatTwin || !inputs) {
      s.error = QStringLiteral("open the quantized model, choose its float twin and give inputs");
      return s;
    }
    const ModuleErrorResult r = moduleErrors(quantized, floatTwin, *inputs);
    if (!r.ok) {
      s.error = r.error;
      return s;
    }
    s.ok = true;
    s.paired = int(r.modules.size());
    s.sqnrByNode = sqnrByNode(r, *quantized);
    if (const ModuleError* worst = r.worst()) {
      s.worstPath = worst->modulePath;
      s.worstSqnrDb = worst->diff.sqnrDb;
    }
    return s;
  }, [](const QString& why) {
    QuantErrorSummary failed;
    failed.error = QStringLiteral("the quantization error could not be measured: %1").arg(why);
    return failed;
  });
}

}  // namespace graft::core::jobs
