#pragma once
// Mixed precision as a rewrite: the chosen nodes compute in float32 whatever dtype the rest of the
// model runs at. Each floating input entering the region is cast up (aten::to float32); each
// floating output leaving it is cast back with aten::type_as to a value that entered it, so at
// float32 the casts do nothing and at float16 or bfloat16 the region stays in float32. Saved as
// .pt or .pt2 like any other revision.
#include "core/model/revision.h"

#include <functional>
#include <unordered_set>

namespace torch::jit { struct Value; }

namespace graft::core::rewrite {

// `isFloating`: whether a value holds a floating tensor (a run tells; types often do not).
// Returns null with `error` set when no node could be kept.
model::RevisionPtr keepInFloat32(const model::Revision& base, const std::unordered_set<model::NodeId>& nodes,
                                 const std::function<bool(const torch::jit::Value*)>& isFloating,
                                 model::NodeIdSource& ids, QString* error);

}  // namespace graft::core::rewrite
