#include "ui/canvas/minimap.h"

#include "ui/render/diagram_painter.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_scene.h"

#include <QtGui/QMouseEvent>
#include <QtGui/QPainter>

namespace graft::ui::canvas {

Minimap::Minimap(GraphCanvas* canvas, QWidget* parent) : QWidget(parent), canvas_(canvas) {
  setObjectName(QStringLiteral("minimap"));
  setMinimumSize(120, 90);
  connect(canvas_, &GraphCanvas::layoutFinished, this, &Minimap::rebuild);
  connect(canvas_, &GraphCanvas::viewportMoved, this, qOverload<>(&QWidget::update));
}

QRectF Minimap::target() const {
  if (sceneRect_.isEmpty()) return {};
  const double s = std::min((width() - 8) / sceneRect_.width(), (height() - 8) / sceneRect_.height());
  const QSizeF size = sceneRect_.size() * s;
  return QRectF(QPointF((width() - size.width()) / 2, (height() - size.height()) / 2), size);
}

QPointF Minimap::toWidget(QPointF p) const {
  const QRectF t = target();
  if (t.isEmpty()) return {};
  return t.topLeft() + QPointF((p.x() - sceneRect_.left()) * t.width() / sceneRect_.width(),
                               (p.y() - sceneRect_.top()) * t.height() / sceneRect_.height());
}

void Minimap::rebuild() {
  // No model: nothing to show (the scene's rect outlives its items).
  sceneRect_ = canvas_->graphScene()->view() ? canvas_->graphScene()->sceneRect() : QRectF();
  const QRectF t = target();
  if (t.isEmpty()) {
    picture_ = {};
    update();
    return;
  }
  picture_ = QImage(t.size().toSize().expandedTo({1, 1}) * devicePixelRatioF(), QImage::Format_ARGB32_Premultiplied);
  picture_.setDevicePixelRatio(devicePixelRatioF());
  picture_.fill(Qt::white);
  const auto* scene = canvas_->graphScene();
  if (scene->view()) {
    QPainter p(&picture_);
    p.scale(t.width() / sceneRect_.width(), t.height() / sceneRect_.height());
    p.translate(-sceneRect_.topLeft());
    paintDiagramFast(p, scene->diagram(), *scene->view(), sceneRect_);
  }
  update();
}

void Minimap::resizeEvent(QResizeEvent*) { rebuild(); }

void Minimap::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().window());
  const QRectF t = target();
  if (picture_.isNull() || t.isEmpty()) return;
  p.drawImage(t.topLeft(), picture_);
  const QRectF visible = canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect();
  const QRectF r = QRectF(toWidget(visible.topLeft()), toWidget(visible.bottomRight())).intersected(t);
  p.setPen(QPen(QColor(0xe0, 0x6c, 0x00), 1.5));
  p.setBrush(QColor(0xe0, 0x6c, 0x00, 40));
  p.drawRect(r);
}

void Minimap::moveCanvasTo(QPointF w) {
  const QRectF t = target();
  if (t.isEmpty()) return;
  const QPointF scenePos(sceneRect_.left() + (w.x() - t.left()) * sceneRect_.width() / t.width(),
                         sceneRect_.top() + (w.y() - t.top()) * sceneRect_.height() / t.height());
  canvas_->centerOn(scenePos);
  update();
}

void Minimap::mousePressEvent(QMouseEvent* event) { moveCanvasTo(event->position()); }
void Minimap::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) moveCanvasTo(event->position());
}

}  // namespace graft::ui::canvas
