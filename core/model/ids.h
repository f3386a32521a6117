#pragma once
#include <cstdint>
#include <functional>

namespace graft::core::model {

// A node's identity across revisions: an unchanged node keeps its id in every revision derived
// from the one it first appeared in. 0 means "no node" (a graph input, or nothing selected).
using NodeId = std::uint64_t;
inline constexpr NodeId kNoNode = 0;

}  // namespace graft::core::model
