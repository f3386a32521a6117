#include "ui/presentation.h"

#include "ui/canvas/graph_canvas.h"
#include "ui/main_window.h"

#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>

namespace graft::ui {

void Presentation::setEnabled(bool on) {
  if (on == on_) return;
  on_ = on;
  auto* canvas = window_->canvas();
  if (on) {
    dockState_ = window_->saveState();
    font_ = QApplication::font();
    QFont big = font_;
    if (font_.pointSizeF() > 0) big.setPointSizeF(font_.pointSizeF() * kFontScale);
    else big.setPixelSize(int(font_.pixelSize() * kFontScale));
    QApplication::setFont(big);
    for (auto* dock : window_->findChildren<QDockWidget*>())
      dock->setVisible(dock->objectName() == QLatin1String("tourDock"));
    // The canvas draws in scene units: zooming in is its "larger font".
    canvas->zoomBy(kFontScale);
  } else {
    QApplication::setFont(font_);
    window_->restoreState(dockState_);
    canvas->zoomBy(1 / kFontScale);
  }
  canvas->setAnimateRevisions(on);
}

}  // namespace graft::ui
