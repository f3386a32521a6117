#pragma once
// Writing the current diagram to SVG or PNG, the same drawing as the canvas.
#include "core/layout/diagram.h"
#include "core/model/graph_view.h"

#include <QtCore/QHash>
#include <QtCore/QString>
#include <QtGui/QColor>

namespace graft::ui::canvas {

// The diagram as one <svg> element to put inline in a page (no XML prolog), with node boxes in
// `outlines` outlined in their colour and a collapsed module holding any of them outlined dashed
// (the canvas overlays: differences, comparison results). Empty for an empty diagram.
QByteArray svgElement(const core::layout::Diagram& diagram, const core::model::GraphView& view,
                      const QHash<core::model::NodeId, QColor>& outlines = {});

// Both return false and set `error` (when given) on failure.
bool writeSvg(const QString& path, const core::layout::Diagram& diagram, const core::model::GraphView& view,
              QString* error = nullptr);
// PNG at `scale` pixels per diagram unit, shrunk when the image would pass `maxSide` pixels.
bool writePng(const QString& path, const core::layout::Diagram& diagram, const core::model::GraphView& view,
              double scale = 1.5, int maxSide = 16000, QString* error = nullptr);

}  // namespace graft::ui::canvas
