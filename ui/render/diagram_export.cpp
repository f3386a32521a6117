#include "ui/render/diagram_export.h"

#include "ui/render/diagram_painter.h"

#include "core/io/atomic_write.h"

#include <QtCore/QBuffer>
#include <QtGui/QImage>
#include <QtGui/QPainter>
#include <QtSvg/QSvgGenerator>

namespace graft::ui::canvas {

namespace {
bool failWith(QString* error, const QString& message) {
  if (error) *error = message;
  return false;
}

// The whole SVG document (XML prolog included): the diagram, outlines as in svgElement.
QByteArray svgDocument(const core::layout::Diagram& d, const core::model::GraphView& view,
                       const QHash<core::model::NodeId, QColor>& outlines) {
  if (d.bounds.isEmpty()) return {};
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  const QRectF box = d.bounds.adjusted(-10, -10, 10, 10);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(box.size().toSize());
  svg.setViewBox(QRectF(QPointF(0, 0), box.size()));
  svg.setTitle(QStringLiteral("Graft diagram"));
  QPainter p;
  if (!p.begin(&svg)) return {};
  p.translate(-box.topLeft());
  paintDiagram(p, d, view);
  p.setBrush(Qt::NoBrush);
  for (const auto& n : d.nodes)
    if (auto it = outlines.constFind(n.id); it != outlines.constEnd()) {
      p.setPen(QPen(*it, 3.5));
      p.drawRoundedRect(n.rect.adjusted(-5, -5, 5, 5), 6, 6);
    }
  // A collapsed module: the colour of the first outlined node inside it, in graph order.
  for (const auto& g : d.groups) {
    if (g.expanded) continue;
    for (const auto& n : view.nodes) {
      const auto it = outlines.constFind(n.id);
      if (it == outlines.constEnd()) continue;
      bool inside = false;
      for (int x = n.group; x >= 0 && !inside; x = view.groups[x].parent) inside = x == g.group;
      if (!inside) continue;
      p.setPen(QPen(*it, 3, Qt::DashLine));
      p.drawRoundedRect(g.rect.adjusted(-5, -5, 5, 5), 6, 6);
      break;
    }
  }
  p.end();
  return buffer.data();
}

// Through QSaveFile: an export never leaves half a file over an old one.
bool writeFile(const QString& path, const QByteArray& bytes, QString* error) {
  const QString why = core::io::writeAtomically(path, bytes);
  return why.isEmpty() || failWith(error, QStringLiteral("cannot write %1: %2").arg(path, why));
}
}  // namespace

bool writeSvg(const QString& path, const core::layout::Diagram& d, const core::model::GraphView& view, QString* error) {
  if (d.bounds.isEmpty()) return failWith(error, QStringLiteral("nothing to export: the diagram is empty"));
  const QByteArray svg = svgDocument(d, view, {});
  if (svg.isEmpty()) return failWith(error, QStringLiteral("cannot start the SVG writer"));
  return writeFile(path, svg, error);
}

QByteArray svgElement(const core::layout::Diagram& d, const core::model::GraphView& view,
                      const QHash<core::model::NodeId, QColor>& outlines) {
  // Inline in HTML: drop the XML declaration; the element keeps its namespaces.
  const QByteArray xml = svgDocument(d, view, outlines);
  const int start = xml.indexOf("<svg");
  return start < 0 ? QByteArray() : xml.mid(start);
}

bool writePng(const QString& path, const core::layout::Diagram& d, const core::model::GraphView& view, double scale,
              int maxSide, QString* error) {
  if (d.bounds.isEmpty()) return failWith(error, QStringLiteral("nothing to export: the diagram is empty"));
  const QRectF box = d.bounds.adjusted(-10, -10, 10, 10);
  scale = std::min(scale, double(maxSide) / std::max(box.width(), box.height()));
  QImage image((box.size() * scale).toSize().expandedTo({1, 1}), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return failWith(error, QStringLiteral("the image is too large to allocate"));
  image.fill(Qt::white);
  QPainter p(&image);
  p.scale(scale, scale);
  p.translate(-box.topLeft());
  paintDiagram(p, d, view);
  p.end();
  QBuffer png;
  png.open(QIODevice::WriteOnly);
  if (!image.save(&png, "PNG")) return failWith(error, QStringLiteral("cannot encode the PNG"));
  return writeFile(path, png.data(), error);
}

}  // namespace graft::ui::canvas
