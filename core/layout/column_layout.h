#pragma once
// A group whose items form one chain (port in -> a -> b -> ... -> port out) is laid out here, as
// dot lays it out: one column centred on its widest item, ranks `ranksep` apart, straight edges
// ending in arrows. Most groups of a real model are such chains (a Conv2d, a BatchNorm, a
// Sequential of them); a Graphviz round trip for each was most of the time a fully expanded
// DenseNet took to lay out.
#include "core/layout/dot_job.h"

#include <optional>

namespace graft::core::layout {

// `job` laid out as one column, in Graphviz's coordinates (y up); nullopt when its nodes and
// edges are not one chain, or a rank subgraph asks for something a column cannot give.
std::optional<DotResult> columnLayout(const DotJob& job, double ranksepPoints);

}  // namespace graft::core::layout
