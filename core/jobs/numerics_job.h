#pragma once
// The numerics debugger's jobs as plain data for the GUI (no libtorch types here): reduce a
// failing precision comparison to a subgraph (run/reduce.h) and find the nodes to keep in float32
// (run/float32_search.h), each from a Compare dock request, run on a worker thread.
#include "core/rewrite/keep_float32.h"
#include "core/run/compare_job.h"

#include <QtCore/QHash>
#include <atomic>
#include <memory>
#include <unordered_set>

namespace graft::core::run { struct ReduceResult; }

namespace graft::core::jobs {


struct ReduceSummary {
  bool ok = false;
  QString error;
  bool nothingFails = false;  // the comparison passes: nothing to reduce
  QVector<model::NodeId> nodes;  // the failing subgraph's nodes (ids of the compared revision)
  model::NodeId failing = model::kNoNode;
  QString failingOp, failingPath;
  double failingMaxAbs = 0;
  int runs = 0;
  QStringList boundary;  // where each of its inputs comes from
  std::shared_ptr<const run::ReduceResult> detail;  // the subgraph and its boundary values, for saveReduced
};

// `request.a` is the reference side; `request.b` must be the same revision (the axis is precision
// or device). `ids`: a copy of the document's, for the subgraph's new nodes.
ReduceSummary runReduce(const run::CompareRequest& request, model::NodeIdSource ids);
// Writes the subgraph as a standalone .pt2; empty when it worked, else why not.
QString saveReduced(const ReduceSummary& summary, const QString& path);

struct Float32Summary {
  bool ok = false;
  QString error;
  bool passesAlready = false;
  std::unordered_set<model::NodeId> nodes;  // to keep in float32
  QStringList labels;                       // "aten::exp (attn)", in graph order
  rewrite::FloatingValues floating;         // for edit::Session::keepInFloat32
  rewrite::MixedPrecision stored;           // likewise (Float32Search::stored)
  double beforeMaxAbs = 0, afterMaxAbs = 0;
  int runs = 0;
};

// `request.b` at a float16 or bfloat16 precision against `request.a` (the same revision).
Float32Summary runFloat32Search(const run::CompareRequest& request, model::NodeIdSource ids);

struct QuantErrorSummary {
  bool ok = false;
  QString error;
  QHash<model::NodeId, double> sqnrByNode;  // each quantized op node: its innermost compared module's SQNR (dB)
  QString worstPath;                        // the module with the lowest SQNR
  double worstSqnrDb = 0;
  int paired = 0;                           // modules compared
};

// A quantized revision against its float twin, module by module (run/module_error.h).
QuantErrorSummary runQuantError(model::RevisionPtr quantized, model::RevisionPtr floatTwin, model::InputsPtr inputs);

}  // namespace graft::core::jobs
