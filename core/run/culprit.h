#pragma once
// The node that introduces the error, not merely the first one past tolerance: each node's local
// error (its own outputs when run on the reference side's inputs at the other side's precision
// and device) measured against the scale of its values, and named only when it stands above the
// rounding noise of the lower precision.
#include "core/model/ids.h"

#include <QtCore/QString>
#include <optional>
#include <vector>

namespace graft::core::run {

struct NodeDiff;

struct Culprit {
  model::NodeId nodeA = model::kNoNode, nodeB = model::kNoNode;
  QString op, modulePath;
  double localMaxAbs = 0;
  double localScaled = 0;  // local max abs / the largest |value| of the node's reference output
};

// A scaled error as a newcomer reads it: "3.12% of its scale", "100% of its scale".
QString shareOfScale(double scaled);

struct TensorDiff;

// Max abs relative to the largest magnitude of the values compared; infinite when there is NaN or infinity
// where the reference is finite, or the pair could not be compared.
double scaledError(const TensorDiff& diff);
// scaledError of the row's local error (0 without one).
double scaledLocalError(const NodeDiff& row);

// The row with the largest scaled local error when it exceeds `noiseFloor` (nullopt otherwise,
// and when no row has a local error).
std::optional<Culprit> findCulprit(const std::vector<NodeDiff>& rows, double noiseFloor);

// Rounding noise a node may add at `lowerUnitRoundoff` before it is named: a few roundings'
// worth, which accumulation alone does not reach.
double culpritNoiseFloor(double lowerUnitRoundoff);

}  // namespace graft::core::run
