#pragma once
// One module group's layout, in the group's own coordinates: what LayoutEngine caches per group.
#include "core/layout/diagram.h"

#include <QtCore/QHash>
#include <QtCore/QPair>
#include <QtCore/QSizeF>
#include <QtCore/QVector>

namespace graft::core::layout {

struct GroupLayout {
  QVector<int> signature;  // the expansion state below the group it was laid out for
  QSizeF size;
  QVector<QPair<model::NodeId, QRectF>> nodes;
  QVector<QPair<int, QRectF>> children;
  QVector<DiagramTerminal> terminals;  // the root group's graph inputs and outputs
  QVector<DiagramEdge> edges;
  // Per edge: the child group its tail / head box is (-1 for a node or terminal), so compose can
  // join the route to that child's port when the child is expanded.
  QVector<QPair<int, int>> endChildren;
  QHash<qint64, QPointF> portsIn, portsOut;  // by producer (node id, or -1 - graph input port)
  bool fallback = false;  // Graphviz failed on this group: drawn by the layered layout
};

}  // namespace graft::core::layout
