#pragma once
// The overview: the whole diagram in small (a picture redrawn once per layout, so panning a
// 20,000-node graph costs nothing here) with the canvas's visible area outlined; click or drag
// to move the canvas there.
#include <QtGui/QImage>
#include <QtWidgets/QWidget>

namespace graft::ui::canvas {

class GraphCanvas;

class Minimap : public QWidget {
  Q_OBJECT
 public:
  explicit Minimap(GraphCanvas* canvas, QWidget* parent = nullptr);
  QSize sizeHint() const override { return {260, 200}; }
  // Where scene point `p` is drawn in this widget (for tests).
  QPointF toWidget(QPointF scenePos) const;
  // Whether a diagram is drawn (false with no model open).
  bool showsDiagram() const { return !picture_.isNull(); }
  // Redraws the picture from the canvas (after each layout, and when the canvas was emptied).
  void rebuild();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QRectF target() const;  // where the picture goes in this widget
  void moveCanvasTo(QPointF widgetPos);

  GraphCanvas* canvas_;
  QImage picture_;
  QRectF sceneRect_;
};

}  // namespace graft::ui::canvas
