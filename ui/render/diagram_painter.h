#pragma once
// Drawing of diagram pieces, shared by the canvas items and the SVG/PNG exporters so that an
// export looks like the screen.
#include "core/layout/diagram.h"
#include "core/model/graph_view.h"

#include <QtGui/QFont>
#include <QtGui/QPainterPath>

class QPainter;

namespace graft::ui::canvas {

// The fixed-pitch font whose advance matches core::layout::kCharWidth.
QFont labelFont();
// Below this level of detail boxes are drawn without text.
inline constexpr double kTextLod = 0.45;
// Whether a box drawn at level of detail `lod` (QStyleOptionGraphicsItem::levelOfDetailFromTransform)
// shows its text; below, a node is a plain filled rectangle.
inline bool showsText(double lod) { return lod >= kTextLod; }

// `heat`, when given, replaces the op-kind fill (the cost heatmap).
void paintNode(QPainter& p, const QRectF& rect, const core::model::ViewNode& node, bool selected, double lod,
               const QColor* heat = nullptr);
// `label`, when not empty, replaces the group's own (a folded repeat's "layer3.1–5 ×5").
void paintGroup(QPainter& p, const QRectF& rect, const core::model::ViewGroup& group, bool expanded, int depth,
                bool highlighted, double lod, const QColor* heat = nullptr, const QStringList& label = {});
// A graph input or output: a dark pill with its name and type, so a reader sees where data
// enters and leaves.
void paintTerminal(QPainter& p, const QRectF& rect, const QStringList& lines, double lod);
// The heatmap colour of a cost `fraction` in [0, 1] of the slowest node: pale yellow to deep red.
QColor heatColour(double fraction);
// A change of time, -1 (the largest saving) … 0 … 1 (the largest loss): green, white, red.
QColor deltaColour(double fraction);
// The +/- toggle's rectangle within a group's rect.
QRectF toggleRect(const QRectF& groupRect);
QPainterPath edgePath(const core::layout::DiagramEdge& edge);
void paintEdge(QPainter& p, const core::layout::DiagramEdge& edge, const QPainterPath& path, bool highlighted,
               double lod);
// The font of an edge's shape label: kEdgeLabelPixels (11 px at 100% zoom).
QFont edgeLabelFont();
// An edge's shape label (core::layout::edgeLabel) in the rect placeEdgeLabels chose for it.
void paintEdgeLabel(QPainter& p, const QRectF& rect, const QString& label, double lod);

// The overview drawing used zoomed far out and by the minimap: plain rectangles and straight
// edges, no text, no antialiasing; only what intersects `exposed` (scene coordinates).
void paintDiagramFast(QPainter& p, const core::layout::Diagram& diagram, const core::model::GraphView& view,
                      const QRectF& exposed);

// The whole diagram, as the canvas shows it, onto any painter (an SVG generator, an image).
void paintDiagram(QPainter& p, const core::layout::Diagram& diagram, const core::model::GraphView& view);

}  // namespace graft::ui::canvas
