#pragma once
// Where each edge's shape label goes, so labels never cover each other, a group's title bar or a
// box. The canvas and the exporters both place labels here, so the screen and an export agree.
#include "core/layout/diagram.h"
#include "core/model/graph_view.h"

#include <QtCore/QRectF>
#include <QtCore/QVector>
#include <QtGui/QPainterPath>

namespace graft::ui::canvas {

struct EdgeLabelRequest {
  QPainterPath path;  // the route as drawn
  QString text;       // empty: no label
  // Requests with the same non-empty key and text say the same thing (one value leaving one port
  // towards several consumers): only one of them is labelled.
  QString key;
};

// The pixel size of the shape labels on edges at 100% zoom (node text is 11 px too).
inline constexpr int kEdgeLabelPixels = 11;

// The rect of `text` drawn with its left edge at x and vertically centred on y.
QSizeF edgeLabelSize(const QString& text);

// One rect per request: where its label goes, or a null rect when it is left out (a duplicate, or
// no free spot along its route). Candidates run from the route's middle outwards, on either side
// of the line; the first one inside `area` (when valid), clear of `obstacles` and of labels already
// placed wins. Spots clear of `avoid` too (frame borders: a label across one reads as belonging
// to neither side) are tried first.
QVector<QRectF> placeEdgeLabels(const QVector<EdgeLabelRequest>& requests, const QVector<QRectF>& obstacles,
                                const QRectF& area = {}, const QVector<QRectF>& avoid = {});

// What labels must keep clear of in a diagram: expanded groups' title bars, collapsed group boxes
// (with a folded repeat's stacked cards), op nodes and graph inputs/outputs.
QVector<QRectF> edgeLabelObstacles(const core::layout::Diagram& diagram);
// The borders of expanded groups' frames, as thin rects.
QVector<QRectF> frameBorders(const core::layout::Diagram& diagram);

// The diagram's labels, inside its bounds (what an export shows): `paths[i]` is
// edgePath(diagram.edges[i]).
QVector<QRectF> placeDiagramEdgeLabels(const core::layout::Diagram& diagram, const core::model::GraphView& view,
                                       const QVector<QPainterPath>& paths);

}  // namespace graft::ui::canvas
