#pragma once
// What a node box says (op, key attributes, output shape) and how big it is. Sizes are estimated
// from character counts so core needs no font; the canvas draws with a font that fits them.
#include "core/model/graph_view.h"

#include <QtCore/QSizeF>
#include <QtCore/QStringList>

namespace graft::core::layout {

// Typography the estimates assume (the canvas uses the same numbers).
inline constexpr double kCharWidth = 7.0;
inline constexpr double kLineHeight = 15.0;
inline constexpr double kPad = 6.0;
inline constexpr double kTitleHeight = 20.0;  // group frame title bar

// Lines of a node box: op name, then "k 3×3 · s 2"-style attributes, then the output shape.
QStringList nodeLabel(const model::ViewNode& node);
QSizeF nodeSize(const model::ViewNode& node);

// A graph input/output box: "input x.1" / "output 0" and the value's type.
QStringList terminalLabel(const model::GraphView& view, bool input, int port);
QSizeF terminalSize(const model::GraphView& view, bool input, int port);

// What an edge says: its tensor's shape, "1×64×56×56" ("s77×8" with a symbolic dimension), and its
// dtype where it is not float32 ("1×16 int64"); empty for a value with no known shape.
QString edgeLabel(const model::ViewEdge& edge);

// A collapsed group's box: "name: Type" and "N ops".
QStringList groupLabel(const model::ViewGroup& group);
QSizeF collapsedGroupSize(const model::ViewGroup& group);

}  // namespace graft::core::layout
