#include "ui/render/diagram_painter.h"

#include "core/layout/edge_stubs.h"
#include "core/layout/labels.h"
#include "ui/render/edge_labels.h"

#include <QtGui/QFontMetricsF>
#include <QtGui/QPainter>
#include <algorithm>
#include <cmath>

namespace graft::ui::canvas {

using core::layout::kLineHeight;
using core::layout::kPad;
using core::layout::kTitleHeight;

namespace {

QColor fillFor(const QString& op) {
  if (op.contains(QLatin1String("conv"))) return QColor(0xd6, 0xe6, 0xfa);
  if (op.contains(QLatin1String("norm"))) return QColor(0xdc, 0xf2, 0xdc);
  if (op.contains(QLatin1String("pool"))) return QColor(0xe9, 0xde, 0xf7);
  if (op.contains(QLatin1String("relu")) || op.contains(QLatin1String("gelu")) ||
      op.contains(QLatin1String("sigmoid")) || op.contains(QLatin1String("tanh")) ||
      op.contains(QLatin1String("softmax")))
    return QColor(0xfd, 0xe8, 0xcf);
  if (op == QLatin1String("linear") || op.contains(QLatin1String("matmul")) || op == QLatin1String("addmm"))
    return QColor(0xfa, 0xd9, 0xde);
  return QColor(0xf0, 0xf0, 0xf0);
}

QColor frameFill(int depth) {
  static const QColor shades[] = {QColor(0xfb, 0xfb, 0xfb), QColor(0xf3, 0xf5, 0xf8), QColor(0xea, 0xee, 0xf3),
                                  QColor(0xe2, 0xe7, 0xee)};
  return shades[std::min(depth, 3)];
}

// Text on `fill`: dark on light fills, white on dark ones (the hottest heatmap reds).
void drawLines(QPainter& p, const QRectF& rect, const QStringList& lines, double left, const QColor& fill) {
  p.setFont(labelFont());
  double y = rect.top() + kPad;
  const bool dark =
      fill.lightnessF() < 0.5 || (0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF()) < 0.55;
  for (int i = 0; i < lines.size(); ++i) {
    if (dark) p.setPen(i == 0 ? QColor(Qt::white) : QColor(0xf0, 0xf0, 0xf0));
    else p.setPen(i == 0 ? QColor(0x20, 0x20, 0x20) : QColor(0x55, 0x55, 0x55));
    p.drawText(QRectF(rect.left() + left, y, rect.width() - left - 2, kLineHeight), Qt::AlignHCenter | Qt::AlignVCenter,
               lines[i]);
    y += kLineHeight;
  }
}

}  // namespace

QFont labelFont() {
  QFont f(QStringLiteral("DejaVu Sans Mono"));
  f.setStyleHint(QFont::Monospace);
  f.setPixelSize(11);
  return f;
}

QColor heatColour(double fraction) {
  // sqrt spreads the many cheap nodes apart from each other; hue runs yellow (60) to red (0).
  const double f = std::sqrt(std::clamp(fraction, 0.0, 1.0));
  return QColor::fromHsvF(std::max(0.0, (1.0 - f) * 60.0 / 360.0), 0.15 + 0.8 * f, 1.0 - 0.25 * f);
}

QColor deltaColour(double fraction) {
  const double f = std::clamp(fraction, -1.0, 1.0);
  const double strength = std::sqrt(std::abs(f));
  return QColor::fromHsvF(f < 0 ? 120.0 / 360.0 : 0.0, 0.85 * strength, 1.0 - 0.2 * strength);
}

void paintNode(QPainter& p, const QRectF& rect, const core::model::ViewNode& node, bool selected, double lod,
               const QColor* heat) {
  p.setPen(selected ? QPen(QColor(0xe0, 0x6c, 0x00), 2.5) : QPen(QColor(0x70, 0x70, 0x70), 1));
  const QColor fill = heat ? *heat : fillFor(node.op);
  p.setBrush(fill);
  if (!showsText(lod)) {
    p.drawRect(rect);
    return;
  }
  p.drawRoundedRect(rect, 3, 3);
  drawLines(p, rect, core::layout::nodeLabel(node), 0, fill);
}

void paintTerminal(QPainter& p, const QRectF& rect, const QStringList& lines, double lod) {
  p.setPen(QPen(QColor(0x2b, 0x3a, 0x4f), 1.5));
  p.setBrush(QColor(0x3d, 0x52, 0x70));
  const double radius = rect.height() / 2;
  p.drawRoundedRect(rect, radius, radius);
  if (lod < kTextLod) return;
  p.setFont(labelFont());
  double y = rect.top() + kPad;
  for (int i = 0; i < lines.size(); ++i) {
    p.setPen(i == 0 ? QColor(Qt::white) : QColor(0xd5, 0xde, 0xea));
    p.drawText(QRectF(rect.left(), y, rect.width(), kLineHeight), Qt::AlignHCenter | Qt::AlignVCenter, lines[i]);
    y += kLineHeight;
  }
}

QRectF toggleRect(const QRectF& r) { return QRectF(r.left() + 4, r.top() + 4, 12, 12); }

void paintGroup(QPainter& p, const QRectF& rect, const core::model::ViewGroup& group, bool expanded, int depth,
                bool highlighted, double lod, const QColor* heat, const QStringList& label) {
  const QPen pen = highlighted ? QPen(QColor(0xe0, 0x6c, 0x00), 2.5) : QPen(QColor(0x8a, 0x96, 0xa8), 1);
  p.setPen(pen);
  if (expanded) {
    // An upright frame needs no antialiasing, and filling nested frames smoothly took a quarter
    // of the canvas's frame time.
    const bool smooth = p.testRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.setBrush(frameFill(depth));
    p.drawRect(rect);
    if (lod >= kTextLod * 0.5) {
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(0xd5, 0xdc, 0xe6));
      p.drawRect(QRectF(rect.left(), rect.top(), rect.width(), kTitleHeight));
    }
    p.setRenderHint(QPainter::Antialiasing, smooth);
    if (lod < kTextLod * 0.5) return;
    p.setFont(labelFont());
    p.setPen(QColor(0x30, 0x3a, 0x48));
    const QString title = core::layout::groupLabel(group).front();
    p.drawText(QRectF(rect.left() + 20, rect.top(), rect.width() - 22, kTitleHeight), Qt::AlignLeft | Qt::AlignVCenter,
               title);
  } else {
    if (!label.isEmpty()) {
      // A folded repeat: a stack of cards, the front one labelled.
      p.setBrush(QColor(0xe3, 0xe9, 0xf3));
      p.drawRoundedRect(rect.translated(6, 6), 4, 4);
      p.drawRoundedRect(rect.translated(3, 3), 4, 4);
    }
    const QColor fill = heat ? *heat : QColor(0xc9, 0xd6, 0xea);
    p.setBrush(fill);
    p.drawRoundedRect(rect, 4, 4);
    if (lod < kTextLod) return;
    drawLines(p, rect, label.isEmpty() ? core::layout::groupLabel(group) : label, 16, fill);
  }
  // The +/- toggle.
  const QRectF t = toggleRect(rect);
  p.setPen(QPen(QColor(0x40, 0x4a, 0x58), 1));
  p.setBrush(Qt::white);
  p.drawRect(t);
  p.drawLine(QPointF(t.left() + 3, t.center().y()), QPointF(t.right() - 3, t.center().y()));
  if (!expanded) p.drawLine(QPointF(t.center().x(), t.top() + 3), QPointF(t.center().x(), t.bottom() - 3));
}

QPainterPath edgePath(const core::layout::DiagramEdge& e) {
  QPainterPath path;
  if (e.points.isEmpty()) return path;
  path.moveTo(e.points.front());
  for (int i = 1; i + 2 < e.points.size(); i += 3) path.cubicTo(e.points[i], e.points[i + 1], e.points[i + 2]);
  if (e.arrow) path.lineTo(e.arrowTip);
  return path;
}

void paintEdge(QPainter& p, const core::layout::DiagramEdge& e, const QPainterPath& path, bool highlighted,
               double lod) {
  QPen pen(highlighted ? QColor(0xe0, 0x6c, 0x00) : QColor(0x50, 0x58, 0x66), highlighted ? 2.0 : 1.1);
  if (lod < kTextLod) pen.setCosmetic(true);
  p.setPen(pen);
  p.setBrush(Qt::NoBrush);
  p.drawPath(path);
  if (!e.arrow || e.points.isEmpty() || lod < 0.2) return;
  // The arrowhead: a triangle from the spline's end to the tip Graphviz gave.
  const QPointF tip = e.arrowTip, base = e.points.back();
  QPointF dir = tip - base;
  const double len = std::hypot(dir.x(), dir.y());
  if (len < 1e-6) return;
  dir /= len;
  const QPointF normal(-dir.y(), dir.x());
  const QPointF back = tip - dir * 9;
  QPolygonF head{tip, back + normal * 3.5, back - normal * 3.5};
  p.setPen(Qt::NoPen);
  p.setBrush(pen.color());
  p.drawPolygon(head);
}

QFont edgeLabelFont() {
  QFont f = labelFont();
  f.setPixelSize(kEdgeLabelPixels);
  return f;
}

void paintEdgeLabel(QPainter& p, const QRectF& r, const QString& label, double lod) {
  if (lod < kTextLod || label.isEmpty() || r.isNull()) return;
  const QFont f = edgeLabelFont();
  p.setFont(f);
  p.setPen(QColor(0x4a, 0x53, 0x60));
  // The rect was sized for DejaVu Sans Mono; a wider fallback font is narrowed to it, so the text
  // never runs out of its place (over a title bar or a box).
  const double wide = QFontMetricsF(f).horizontalAdvance(label);
  if (wide <= r.width()) return p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, label);
  const QTransform before = p.transform();
  p.translate(r.left(), 0);
  p.scale(r.width() / wide, 1);
  p.drawText(QRectF(0, r.top(), wide, r.height()), Qt::AlignLeft | Qt::AlignVCenter, label);
  p.setTransform(before);
}

void paintDiagramFast(QPainter& p, const core::layout::Diagram& d, const core::model::GraphView& view,
                      const QRectF& exposed) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing, false);
  // What is under a pixel on screen is left out: the filled frame around it shows the spot.
  const double zoom = std::max(1e-9, std::abs(p.worldTransform().m11()));
  auto tiny = [zoom](const QRectF& r) { return r.width() * zoom < 1.0 && r.height() * zoom < 1.0; };
  for (const auto& g : d.groups)
    if (g.rect.intersects(exposed) && (g.depth <= 1 || !tiny(g.rect)))
      p.fillRect(g.rect, g.expanded ? frameFill(g.depth) : QColor(0xc9, 0xd6, 0xea));
  QVector<QLineF> lines;
  lines.reserve(d.edges.size());
  for (const auto& e : d.edges) {
    if (e.points.isEmpty()) continue;
    const QLineF l(e.points.front(), e.arrow ? e.arrowTip : e.points.back());
    const QRectF box = QRectF(l.p1(), l.p2()).normalized();
    if (!tiny(box) && box.adjusted(-1, -1, 1, 1).intersects(exposed)) lines << l;
  }
  QPen pen(QColor(0x50, 0x58, 0x66, 110), 0);  // cosmetic hairline, light: dense blocks stay legible
  p.setPen(pen);
  p.drawLines(lines);
  for (const auto& n : d.nodes)
    if (!tiny(n.rect) && n.rect.intersects(exposed))
      if (const auto* vn = view.node(n.id)) p.fillRect(n.rect, fillFor(vn->op).darker(115));
  for (const auto& t : d.terminals)
    if (t.rect.intersects(exposed)) p.fillRect(t.rect, QColor(0x3d, 0x52, 0x70));
  p.restore();
}

void paintDiagram(QPainter& p, const core::layout::Diagram& d, const core::model::GraphView& view) {
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  for (const auto& g : d.groups)
    paintGroup(p, g.rect, view.groups[g.group], g.expanded, g.depth, false, 1.0, nullptr, g.label);
  QVector<QPainterPath> paths;
  paths.reserve(d.edges.size());
  for (const auto& e : d.edges) paths << edgePath(e);
  const QVector<QRectF> labels = placeDiagramEdgeLabels(d, view, paths);
  for (int i = 0; i < d.edges.size(); ++i) paintEdge(p, d.edges[i], paths[i], false, 1.0);
  for (int i = 0; i < d.edges.size(); ++i)
    if (!labels[i].isNull()) paintEdgeLabel(p, labels[i], core::layout::routeLabel(d.edges[i], view), 1.0);
  for (const auto& n : d.nodes)
    if (const auto* vn = view.node(n.id)) paintNode(p, n.rect, *vn, false, 1.0);
  for (const auto& t : d.terminals) paintTerminal(p, t.rect, core::layout::terminalLabel(view, t.input, t.port), 1.0);
}

}  // namespace graft::ui::canvas
