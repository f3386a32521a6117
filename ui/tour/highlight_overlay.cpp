#include "ui/tour/highlight_overlay.h"

#include <QtCore/QEvent>
#include <QtGui/QPainter>

namespace graft::ui {

HighlightOverlay::HighlightOverlay(QWidget* target) : QWidget(target->window()), target_(target) {
  setAttribute(Qt::WA_TransparentForMouseEvents);
  setAttribute(Qt::WA_NoSystemBackground);
  setObjectName(QStringLiteral("tourHighlight"));
  target->installEventFilter(this);
  follow();
}

bool HighlightOverlay::eventFilter(QObject* watched, QEvent* event) {
  if (watched == target_) {
    switch (event->type()) {
      case QEvent::Move:
      case QEvent::Resize:
      case QEvent::Show:
      case QEvent::Hide:
      case QEvent::ZOrderChange:  // the dock was raised: stay above it
        follow();
        break;
      default:
        break;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void HighlightOverlay::follow() {
  if (!target_ || !target_->isVisible()) {
    hide();
    return;
  }
  const QPoint topLeft = target_->mapTo(parentWidget(), QPoint(0, 0));
  setGeometry(QRect(topLeft, target_->size()));
  show();
  raise();
}

void HighlightOverlay::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(colour(), 4));
  p.setBrush(Qt::NoBrush);
  p.drawRoundedRect(QRectF(rect()).adjusted(2, 2, -2, -2), 6, 6);
}

}  // namespace graft::ui
