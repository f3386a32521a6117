#pragma once
// No curtains: a value that many nodes far apart read (a residual stream, an attention mask,
// position ids) would be drawn as lines the height of the graph that hide it and say nothing.
// Its long routes become short stubs instead: one into each far reader, labelled with the
// source, and one below the source saying how many far readers it has. Short routes of the same
// value stay lines. The canvas and the exporters draw the same stubs.
#include "core/layout/diagram.h"
#include "core/model/graph_view.h"

namespace graft::core::layout {

inline constexpr double kStubSpan = 1600;  // scene pixels (about 20 rows): longer routes are far
inline constexpr int kStubReaders = 3;     // far routes of one value before they become stubs
inline constexpr double kStubLength = 28;  // a stub's length in scene pixels

void stubLongEdges(Diagram& diagram, const model::GraphView& view);

// The text drawn beside a route: a stub's note, else the value's shape (edgeLabel).
QString routeLabel(const DiagramEdge& route, const model::GraphView& view);

// What a stub names as its source: "input attention_mask", "h.3 add", "add".
QString stubSourceName(const model::ViewEdge& edge, const model::GraphView& view);

}  // namespace graft::core::layout
