#include "ui/fit_screen.h"

#include <QtGui/QGuiApplication>
#include <QtGui/QScreen>
#include <QtWidgets/QScrollArea>
#include <QtWidgets/QWidget>

#include <algorithm>

namespace graft::ui {

namespace {
QRect available(const QWidget* window) {
  const QScreen* screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
  return screen ? screen->availableGeometry() : QRect(0, 0, 1366, 768);
}
// Title bar and borders, which the frame adds around the window's own size.
constexpr int kFrameWidth = 16, kFrameHeight = 48;
}  // namespace

QWidget* scrollable(QWidget* content) {
  auto* area = new QScrollArea(content->parentWidget());
  area->setObjectName(content->objectName() + QStringLiteral("Scroll"));
  area->setFrameShape(QFrame::NoFrame);
  area->setWidgetResizable(true);
  area->setWidget(content);
  return area;
}

QSize fittedSize(const QWidget* window, const QSize& preferred) {
  const QRect a = available(window);
  return preferred.boundedTo(QSize(a.width() - kFrameWidth, a.height() - kFrameHeight));
}

void fitToScreen(QWidget* window) {
  const QRect a = available(window);
  const QSize size = fittedSize(window, window->size());
  if (size != window->size()) window->resize(size);
  const QRect frame = window->frameGeometry();
  QPoint topLeft = frame.topLeft();
  topLeft.setX(std::clamp(topLeft.x(), a.left(), std::max(a.left(), a.right() - frame.width())));
  topLeft.setY(std::clamp(topLeft.y(), a.top(), std::max(a.top(), a.bottom() - frame.height())));
  if (topLeft != frame.topLeft()) window->move(topLeft);
}

}  // namespace graft::ui
