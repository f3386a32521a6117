#include "ui/canvas/graph_items.h"

#include "core/layout/labels.h"

#include "ui/render/diagram_painter.h"
#include "ui/canvas/graph_scene.h"

#include <QtGui/QPainter>
#include <QtGui/QPainterPathStroker>
#include <QtWidgets/QGraphicsSceneMouseEvent>
#include <QtWidgets/QStyleOptionGraphicsItem>
#include <algorithm>

namespace graft::ui::canvas {

namespace {
GraphScene* sceneOf(const QGraphicsItem* item) { return static_cast<GraphScene*>(item->scene()); }
double lodOf(QPainter* p, const QStyleOptionGraphicsItem* option) {
  return option->levelOfDetailFromTransform(p->worldTransform());
}
// An overlay ring `grow` px outside a box (changes, marks); kOutline bounds how far it reaches.
void drawOutline(QPainter* p, const QRectF& rect, const QPen& pen, double grow, double radius) {
  p->setPen(pen);
  p->setBrush(Qt::NoBrush);
  p->drawRoundedRect(rect.adjusted(-grow, -grow, grow, grow), radius, radius);
}
// Clicks hit the box itself, not the room left for outlines.
QPainterPath boxShape(const QRectF& rect) {
  QPainterPath path;
  path.addRect(rect.adjusted(-2, -2, 2, 2));
  return path;
}
}  // namespace

NodeItem::NodeItem(core::model::NodeId id, const QRectF& rect) : id_(id), rect_(rect) { setZValue(2); }

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const auto* s = sceneOf(this);
  if (!s->detailVisible()) return;  // the canvas's overview shows it
  QColor heat;
  const bool hot = s->nodeHeat(id_, &heat);
  if (const auto* n = s->view() ? s->view()->node(id_) : nullptr)
    paintNode(*p, rect_, *n, s->nodeSelected(id_), lodOf(p, option), hot ? &heat : nullptr);
  // A node with a verdict or tool mark shows that ring alone: the green of "added" inside a red
  // "differs" ring would read as a contradiction.
  const auto* mark = s->markOf(id_);
  if (auto change = s->changes().constFind(id_); change != s->changes().constEnd() && !(mark && mark->rank >= 0)) {
    const bool added = *change == GraphScene::Change::Added;
    drawOutline(p, rect_, QPen(added ? QColor(0x2e, 0xa0, 0x43) : QColor(0x1f, 0x6f, 0xeb), 3), 3, 4);
  }
  // A mark's ring is drawn by the scene, above every box.
}

QPainterPath NodeItem::shape() const { return boxShape(rect_); }

void NodeItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return event->ignore();
  if (event->modifiers() & Qt::ControlModifier) sceneOf(this)->nodeCtrlClicked(id_);
  else sceneOf(this)->nodeClicked(id_);
  event->accept();
}

void TerminalItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const auto* s = sceneOf(this);
  if (!s->view() || !s->detailVisible()) return;
  const auto& t = s->diagram().terminals[terminal_];
  paintTerminal(*p, rect_, core::layout::terminalLabel(*s->view(), t.input, t.port), lodOf(p, option));
}

GroupItem::GroupItem(int group, const QRectF& rect, bool expanded, int depth, QStringList label)
    : group_(group), rect_(rect), expanded_(expanded), depth_(depth), label_(std::move(label)) {
  setZValue(expanded ? 0 : 2);
}

void GroupItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const auto* s = sceneOf(this);
  if (!s->view() || !s->detailVisible()) return;
  QColor heat;
  const bool hot = !expanded_ && s->groupHeat(group_, &heat);
  paintGroup(*p, rect_, s->view()->groups[group_], expanded_, depth_, highlighted_, lodOf(p, option),
             hot ? &heat : nullptr, label_);
  const auto* mark = expanded_ ? nullptr : s->groupMark(group_);
  if (!expanded_ && s->groupHasChange(group_) && !(mark && mark->rank >= 0))
    drawOutline(p, rect_, QPen(QColor(0x2e, 0xa0, 0x43), 2.5, Qt::DashLine), 3, 5);
}

void paintMarkRing(QPainter& p, const QRectF& box, const QColor& colour, bool dashed) {
  // The halo keeps the ring's colour apart from whatever lies under it (a heat fill, an edge).
  drawOutline(&p, box, QPen(QColor(255, 255, 255, 230), kMarkHalo), kMarkGrow, 7);
  drawOutline(&p, box, QPen(colour, kMarkPen, dashed ? Qt::DashLine : Qt::SolidLine), kMarkGrow, 7);
}

QPainterPath GroupItem::shape() const { return boxShape(rect_); }

void GroupItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  // A click on the +/- toggles; elsewhere the press falls through to the view (panning).
  if (event->button() == Qt::LeftButton && toggleRect(rect_).adjusted(-3, -3, 3, 3).contains(event->pos())) {
    sceneOf(this)->toggleClicked(group_);
    event->accept();
    return;
  }
  event->ignore();
}

void GroupItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) {
  if (!expanded_ && event->button() == Qt::LeftButton) sceneOf(this)->toggleClicked(group_);
}

EdgeItem::EdgeItem(int route, const QPainterPath& path, QString label, const QRectF& labelRect)
    : route_(route), path_(path), label_(std::move(label)), labelRect_(label_.isEmpty() ? QRectF() : labelRect) {
  QPainterPathStroker stroker;
  stroker.setWidth(8);
  hoverShape_ = stroker.createStroke(path_);
  bounds_ = hoverShape_.boundingRect();
  if (!labelRect_.isNull()) bounds_ = bounds_.united(labelRect_);
  setZValue(1);
  setAcceptHoverEvents(true);
  setFlag(ItemUsesExtendedStyleOption);  // paint() gets the exposed rect, not the whole route
  for (int i = 1, n = path_.elementCount(); i < n;) {
    if (path_.elementAt(i).type == QPainterPath::CurveToElement && i + 2 < n) {
      splitCurve({path_.elementAt(i - 1), path_.elementAt(i), path_.elementAt(i + 1), path_.elementAt(i + 2)}, pieces_);
      i += 3;
    } else {
      const QPointF a = path_.elementAt(i - 1), b = path_.elementAt(i);
      pieces_.push_back({{a, a, b, b}, QRectF(a, b).normalized()});
      i += 1;
    }
  }
}

void EdgeItem::splitCurve(const std::array<QPointF, 4>& c, QVector<Piece>& out) {
  const QRectF bounds = QPolygonF({c[0], c[1], c[2], c[3]}).boundingRect();
  if (std::max(bounds.width(), bounds.height()) <= kPieceExtent) return out.push_back({c, bounds});
  // de Casteljau at t = 1/2: the same curve in two halves.
  const QPointF ab = (c[0] + c[1]) / 2, bc = (c[1] + c[2]) / 2, cd = (c[2] + c[3]) / 2;
  const QPointF abc = (ab + bc) / 2, bcd = (bc + cd) / 2, mid = (abc + bcd) / 2;
  splitCurve({c[0], ab, abc, mid}, out);
  splitCurve({mid, bcd, cd, c[3]}, out);
}

QPainterPath EdgeItem::visiblePath(const QRectF& exposed) const {
  if (exposed.contains(bounds_)) return path_;
  QPainterPath part;
  const Piece* last = nullptr;  // the piece kept before: a neighbour continues its subpath
  for (const Piece& piece : pieces_) {
    if (!piece.bounds.intersects(exposed)) continue;
    if (!last || last + 1 != &piece) part.moveTo(piece.c[0]);
    part.cubicTo(piece.c[1], piece.c[2], piece.c[3]);
    last = &piece;
  }
  return part;
}

void EdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
  const auto* s = sceneOf(this);
  if (!s->detailVisible()) return;
  const auto& e = s->diagram().edges[route_];
  const auto& ve = s->view()->edges[e.edge];
  const bool touches =
      (s->selectedNode() != core::model::kNoNode && (ve.from == s->selectedNode() || ve.to == s->selectedNode())) ||
      s->routeOfHoveredValue(route_);
  const double lod = lodOf(p, option);
  // A few pixels of slack for the pen's width.
  const double slack = 4 / std::max(lod, 1e-6);
  paintEdge(*p, e, visiblePath(option->exposedRect.adjusted(-slack, -slack, slack, slack)), touches, lod);
  paintEdgeLabel(*p, labelRect_, label_, lod);
}

void EdgeItem::hoverEnterEvent(QGraphicsSceneHoverEvent* event) {
  if (sceneOf(this)->diagram().edges[route_].stub) sceneOf(this)->setHoveredStub(route_);
  QGraphicsItem::hoverEnterEvent(event);
}

void EdgeItem::hoverLeaveEvent(QGraphicsSceneHoverEvent* event) {
  if (sceneOf(this)->diagram().edges[route_].stub) sceneOf(this)->setHoveredStub(-1);
  QGraphicsItem::hoverLeaveEvent(event);
}

void EdgeItem::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  const auto& route = sceneOf(this)->diagram().edges[route_];
  if (event->button() == Qt::LeftButton && route.stub && !route.atSource) {
    sceneOf(this)->stubClicked(route_);
    event->accept();
    return;
  }
  event->ignore();  // panning
}

}  // namespace graft::ui::canvas
