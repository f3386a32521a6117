#pragma once
// Mixed precision as a rewrite: the chosen nodes compute in float32 whatever dtype the rest of the
// model runs at. Each floating input entering the region is cast up (aten::to float32); each
// floating output leaving it is cast back with aten::type_as to a value that entered it, so at
// float32 the casts do nothing and at float16 or bfloat16 the region stays in float32. Saved as
// .pt or .pt2 like any other revision.
// MixedPrecision::programDtype makes the rest of the program that dtype, as `model.half()` does
// (rewrite/program_dtype.h), so that stock PyTorch runs the saved file as it is, after `.half()`,
// on float32 or float16 inputs, and gets what Graft verified. (A model whose weights are module
// attributes, not frozen, keeps them: `.half()` converts those.)
// MixedPrecision::keptAt float64 is for autocast: torch.autocast lowers float32 inputs of matrix
// products and convolutions but leaves float64 alone (a cast to float32 would be undone), so the
// kept nodes compute in float64 inside a float32 program run under autocast.
#include "core/model/revision.h"

#include <c10/core/ScalarType.h>

#include <QtCore/QJsonObject>
#include <optional>
#include <set>
#include <unordered_set>

namespace torch::jit { struct Value; }

namespace graft::core::rewrite {

// A value by where it comes from: output `index` of node `node`, or graph input `index` (0 is
// self) when `node` is kNoNode. Stable across loads, so a journal can name values.
struct ValueKey {
  model::NodeId node = model::kNoNode;
  int index = 0;
  bool operator<(const ValueKey& o) const { return node != o.node ? node < o.node : index < o.index; }
};
ValueKey valueKey(const model::Revision& revision, const torch::jit::Value* value);

// The values that hold floating tensors (a run tells; types often do not).
using FloatingValues = std::set<ValueKey>;

// How the program with kept nodes is stored (see above).
struct MixedPrecision {
  std::optional<c10::ScalarType> programDtype;  // the rest of the program at this dtype; unset: as it is
  c10::ScalarType keptAt = c10::kFloat;         // the kept nodes' dtype
};

// Returns null with `error` set when no node could be kept.
model::RevisionPtr keepInFloat32(const model::Revision& base, const std::unordered_set<model::NodeId>& nodes,
                                 const FloatingValues& floating, model::NodeIdSource& ids, QString* error,
                                 const MixedPrecision& precision = {});

// The journal's record of it: {"nodes": ["12", …], "floating": ["12:0", "in:1", …], "dtype": "float16",
// "kept_at": "float64"} ("dtype" only with a program dtype, "kept_at" only when not float32).
QJsonObject keepFloat32ToJson(const std::unordered_set<model::NodeId>& nodes, const FloatingValues& floating,
                              const MixedPrecision& precision);
bool keepFloat32FromJson(const QJsonObject& json, std::unordered_set<model::NodeId>& nodes, FloatingValues& floating,
                         MixedPrecision& precision, QString* error);

}  // namespace graft::core::rewrite
