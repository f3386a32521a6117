#include "ui/presentation.h"

#include "ui/canvas/graph_canvas.h"

#include <QtCore/QTimer>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QMainWindow>

namespace graft::ui {

namespace {
bool isTourDock(const QDockWidget* dock) { return dock->objectName() == QLatin1String("tourDock"); }
}  // namespace

void Presentation::setEnabled(bool on) {
  if (on == on_) return;
  on_ = on;
  auto* canvas = canvas_;
  if (on) {
    dockState_ = window_->saveState();
    font_ = QApplication::font();
    QFont big = font_;
    if (font_.pointSizeF() > 0) big.setPointSizeF(font_.pointSizeF() * kFontScale);
    else big.setPixelSize(int(font_.pixelSize() * kFontScale));
    QApplication::setFont(big);
    keepDocksHidden();
    if (auto* tour = window_->findChild<QDockWidget*>(QStringLiteral("tourDock")); tour && tour->isVisible())
      window_->resizeDocks({tour}, {int(window_->width() * kTourShare)}, Qt::Horizontal);
  } else {
    QApplication::setFont(font_);
    window_->restoreState(dockState_);
  }
  // The canvas changed size with the docks: once the layout has settled, the diagram fills it,
  // a small one at the larger font's scale.
  canvas->setMaxFitZoom(on ? kFontScale : 1.0);
  QTimer::singleShot(0, canvas, [canvas] { canvas->fitToWindow(); });
  canvas->setAnimateRevisions(on);
}

void Presentation::keepDocksHidden() {
  for (auto* dock : window_->findChildren<QDockWidget*>()) {
    dock->setVisible(isTourDock(dock));
    if (isTourDock(dock) || dock->property("presentationGuard").toBool()) continue;
    dock->setProperty("presentationGuard", true);
    // A dock a job or a tour step shows while presenting goes again: the screen is the canvas's.
    QObject::connect(dock, &QDockWidget::visibilityChanged, dock, [this, dock](bool visible) {
      if (on_ && visible) QTimer::singleShot(0, dock, [this, dock] {
        if (on_) dock->hide();
      });
    });
  }
}

}  // namespace graft::ui
