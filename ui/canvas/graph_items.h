#pragma once
// The canvas items: an op node, a module group (frame or collapsed box), an edge route.
#include "core/model/ids.h"

#include <QtGui/QPainterPath>
#include <QtWidgets/QGraphicsItem>
#include <array>

namespace graft::ui::canvas {

class GraphScene;

// How far outlines (changes, marks and the white halo under a mark) reach outside a box.
inline constexpr double kOutline = 11;
// A mark's ring: its distance outside the box and its pen. The scene draws it over every item
// (GraphScene::drawForeground) on a white halo, so no heat fill or neighbouring box hides it.
inline constexpr double kMarkGrow = 7;
inline constexpr double kMarkPen = 3.5;
inline constexpr double kMarkHalo = 6.5;

class NodeItem : public QGraphicsItem {
 public:
  NodeItem(core::model::NodeId id, const QRectF& rect);
  core::model::NodeId id() const { return id_; }
  QRectF rect() const { return rect_; }
  // Room for the change and mark outlines drawn around the box; clicks hit the box only.
  QRectF boundingRect() const override { return rect_.adjusted(-kOutline, -kOutline, kOutline, kOutline); }
  QPainterPath shape() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  core::model::NodeId id_;
  QRectF rect_;
};

// A graph input or output (index into Diagram::terminals).
class TerminalItem : public QGraphicsItem {
 public:
  TerminalItem(int terminal, const QRectF& rect) : terminal_(terminal), rect_(rect) { setZValue(2); }
  int terminal() const { return terminal_; }
  QRectF boundingRect() const override { return rect_.adjusted(-2, -2, 2, 2); }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  int terminal_;
  QRectF rect_;
};

class GroupItem : public QGraphicsItem {
 public:
  GroupItem(int group, const QRectF& rect, bool expanded, int depth, QStringList label = {});
  // A folded repeat's label ("layer3.1–5 ×5"); empty for a plain module.
  const QStringList& label() const { return label_; }
  int group() const { return group_; }
  bool expanded() const { return expanded_; }
  QRectF rect() const { return rect_; }
  QRectF boundingRect() const override { return rect_.adjusted(-kOutline, -kOutline, kOutline, kOutline); }
  QPainterPath shape() const override;
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  void setHighlighted(bool on) { highlighted_ = on; update(); }

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  int group_;
  QRectF rect_;
  bool expanded_;
  int depth_;
  bool highlighted_ = false;
  QStringList label_;
};

// A mark's ring around `box` (dashed around a collapsed group).
void paintMarkRing(QPainter& p, const QRectF& box, const QColor& colour, bool dashed);

class EdgeItem : public QGraphicsItem {
 public:
  // `labelRect`: where placeEdgeLabels put the label; null when it is left out (the tooltip still
  // gives the shape).
  EdgeItem(int route, const QPainterPath& path, QString label = {}, const QRectF& labelRect = {});
  int route() const { return route_; }  // index into the scene diagram's edges
  const QString& label() const { return label_; }
  QRectF labelRect() const { return labelRect_; }
  QRectF boundingRect() const override { return bounds_; }
  QPainterPath shape() const override { return hoverShape_; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  // The part of the route that reaches into `exposed` (item coordinates): a long edge runs the
  // height of a large graph, and stroking all of it for every frame cost most of the frame.
  QPainterPath visiblePath(const QRectF& exposed) const;

 protected:
  // A stub (core/layout/edge_stubs.h) highlights its value while hovered; a click on a reader's
  // stub goes to the source.
  void hoverEnterEvent(QGraphicsSceneHoverEvent* event) override;
  void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  int route_;
  QPainterPath path_, hoverShape_;
  // The route as cubic pieces no larger than kPieceExtent (a line is a flat cubic), with the bounds
  // of their control points: paint() strokes only those in view.
  struct Piece {
    std::array<QPointF, 4> c;
    QRectF bounds;
  };
  static constexpr double kPieceExtent = 256;
  static void splitCurve(const std::array<QPointF, 4>& c, QVector<Piece>& out);
  QVector<Piece> pieces_;
  QString label_;  // the tensor's shape, drawn beside the route
  QRectF labelRect_, bounds_;
};

}  // namespace graft::ui::canvas
