#pragma once
// A comparison as plain data, for the GUI (no libtorch types here): what to compare, the rows
// a results table shows, and per-node tensor statistics for the inspector.
#include "core/model/diagnostic.h"
#include "core/model/ids.h"
#include "core/model/revision.h"
#include "core/run/input_values.h"

#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVector>
#include <atomic>
#include <memory>
#include <optional>

namespace graft::core::model { class Document; }

namespace graft::core::run {

struct CompareResult;
struct CompareOptions;

// Everything a comparison reads, as immutable snapshots: revisions and inputs resolved on the
// caller's thread (resolveInputs), never a Document, which the GUI may close meanwhile.
struct CompareRequest {
  model::RevisionPtr a, b;
  InputsPtr inputs;
  double atol = 1e-5, rtol = 1e-4;
  bool elementwise = false;  // judged at atol/rtol; otherwise by the rounding model (verdict.h)
  QString deviceA = QStringLiteral("cpu"), deviceB = QStringLiteral("cpu");
  // Precision of each side: empty for the model as saved, else "float16", "bfloat16", "float64", …
  QString dtypeA, dtypeB;
  bool autocastB = false;  // B keeps reductions and normalisations in float32
  // A side at another dtype runs the program's float32 casts as written (this program's ops at
  // that dtype) rather than as model.half() makes them (run/dtype_follow.h).
  bool castsAsWritten = false;
  QStringList outputNames;  // B's outputs by path ("logits"), for the rows' labels
  bool perNode = true;
  // How nodes pair: through provenance (null lineages: the revisions' own, which is right for
  // two revisions of one document) or, for unrelated files, by structure. pairWith() sets these.
  bool byStructure = false;
  std::shared_ptr<const model::Lineage> lineageA, lineageB;
  // For `a` and `b` from two documents (run/compare.h pairDocuments).
  void pairWith(const model::Document& docA, const model::Document& docB);
};

struct CompareRow {
  QString label;  // "output 0" or the module path
  model::NodeId node = model::kNoNode;
  QString op;     // B's op; "aten::relu -> aten::gelu" when they differ
  QString modulePath;
  double maxAbs = 0, maxRel = 0, cosine = 1;
  double sqnrDb = 0;          // +inf when equal
  double scaled = 0;          // max abs / the reference's largest magnitude (run/culprit.h)
  bool hasLocal = false;      // precision or device comparisons: the error the node adds itself
  double localMaxAbs = 0, localScaled = 0;
  qint64 mismatched = 0, numel = 0;
  bool pass = true;
  QString note;
  int change = 0;  // N: the row compares a value leaving change group N
};

struct TensorStats {
  QString shape, dtype, device;
  double min = 0, max = 0, mean = 0, std = 0;
  qint64 nanCount = 0, infCount = 0, numel = 0;
  double histLo = 0, histHi = 0;
  QVector<double> histogram;  // counts of finite values in equal-width bins over [histLo, histHi]
  // 4-D feature maps (N, C, H, W): the first channels of item 0, each scaled to [0, 1] over its own
  // finite range, row-major H x W.
  int channelCount = 0;  // C of the tensor (more than `channels` holds when it is large)
  int mapHeight = 0, mapWidth = 0;
  QVector<QVector<float>> channels;
};

// How many channel maps statsFor keeps at most.
inline constexpr int kMaxChannelMaps = 32;

struct CompareSummary {
  bool ok = false;
  bool cancelled = false;
  QString error;
  model::NodeId errorNode = model::kNoNode;  // the node the failing run stopped at, when known
  bool errorOnB = false;
  bool equal = false;
  QVector<CompareRow> outputs;
  QVector<CompareRow> nodes;
  std::optional<CompareRow> firstDivergence;         // outputs differ: the first row beyond tolerance
  std::optional<CompareRow> intermediateDivergence;  // outputs equal, yet this row is beyond tolerance
  std::optional<CompareRow> culprit;                 // the node with the largest local error above noise
  bool localErrors = false;                          // rows carry local errors (precision or device axis)
  QString precisionB;                                // "float16 (autocast)", empty as saved
  QStringList changes;                               // "change 1: aten::conv2d + aten::batch_norm → aten::conv2d"
  QVector<model::NodeId> insideChanges;              // B nodes inside a change: not compared on their own
  int notCompared = 0;                               // rows left out (uninitialised memory, no value)
  // Every node whose values were left out, with why ("uninitialised memory", "inside change 1:
  // …"): the canvas greys them and says why in their tooltip.
  struct Skipped {
    model::NodeId node = model::kNoNode;
    QString op, reason;
    int change = 0;  // inside change group N
  };
  QVector<Skipped> skipped;
  std::shared_ptr<const CompareResult> detail;  // the runs, for statsFor()
  // The error (at the node the failing run stopped), or differing outputs as a warning about
  // the first divergence; nothing when cancelled or equal.
  model::Diagnostics diagnostics() const;
};

// The request as run/compare.h options; false with `error` set for an unknown device or dtype,
// missing revisions or inputs.
bool optionsFor(const CompareRequest& request, CompareOptions& options, QString* error);

// Runs the comparison (blocking: call it from a worker thread). `cancel` is polled between nodes.
// Never throws: whatever fails comes back in CompareSummary::error.
CompareSummary runCompare(const CompareRequest& request, const std::atomic<bool>* cancel = nullptr);

// A finished comparison as the rows a table shows (runCompare's second half, for a job that
// ran the comparison another way: a remote B).
CompareSummary summaryOf(std::shared_ptr<const CompareResult> result, const CompareRequest& request,
                         const CompareOptions& options);

// Statistics of node `node`'s first tensor output on side A (`sideB` false) or B; nullopt when the
// node has no kept tensor output.
std::optional<TensorStats> statsFor(const CompareSummary& summary, model::NodeId node, bool sideB, int bins = 40);

// Precisions a side can run at: "" (as saved), then float16, bfloat16, float32, float64.
QStringList availablePrecisions();
// The tolerance a comparison at these precisions starts from (torch.testing's defaults).
std::pair<double, double> defaultTolerance(const QString& dtypeA, const QString& dtypeB);

// Devices this build can run on: "cpu", plus "cuda" when available.
QStringList availableDevices();
// This machine's devices by name: "cpu", then "cuda:0", "cuda:1", … where CUDA is available at run time.
QStringList localDevices();

}  // namespace graft::core::run
