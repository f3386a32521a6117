#include "ui/presentation.h"

#include "ui/canvas/graph_canvas.h"
#include "ui/render/diagram_painter.h"

#include <QtCore/QTimer>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QMainWindow>

namespace graft::ui {

namespace {
bool isTourDock(const QDockWidget* dock) { return dock->objectName() == QLatin1String("tourDock"); }
bool mayShow(const QDockWidget* dock) { return isTourDock(dock) || Presentation::keepsDock(dock->objectName()); }

// Fitted, and never smaller than reading size: labels of at least kReadablePixels on screen.
void fitReadable(canvas::GraphCanvas* canvas) {
  canvas->fitToWindow();
  const double readable = Presentation::kReadablePixels / canvas::labelFont().pixelSize();
  if (canvas->zoom() < readable) canvas->zoomBy(readable / canvas->zoom());
}
}  // namespace

bool Presentation::keepsDock(const QString& objectName) {
  return objectName == QLatin1String("compareDock") || objectName == QLatin1String("profileDock");
}

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
  QObject::disconnect(readable_);
  if (on) {
    QTimer::singleShot(0, canvas, [canvas] { fitReadable(canvas); });
    // A model a tour step opens is laid out afresh: it is shown at reading size too.
    readable_ = QObject::connect(canvas, &canvas::GraphCanvas::layoutFinished, canvas, [canvas] {
      const double readable = kReadablePixels / canvas::labelFont().pixelSize();
      if (canvas->zoom() < readable) canvas->zoomBy(readable / canvas->zoom());
    });
  } else {
    QTimer::singleShot(0, canvas, [canvas] { canvas->fitToWindow(); });
  }
  canvas->setAnimateRevisions(on);
}

void Presentation::keepDocksHidden() {
  for (auto* dock : window_->findChildren<QDockWidget*>()) {
    dock->setVisible(isTourDock(dock));
    if (mayShow(dock) || dock->property("presentationGuard").toBool()) continue;
    dock->setProperty("presentationGuard", true);
    // Another dock a job or a tour step shows while presenting goes again: the screen is the canvas's.
    QObject::connect(dock, &QDockWidget::visibilityChanged, dock, [this, dock](bool visible) {
      if (on_ && visible) QTimer::singleShot(0, dock, [this, dock] {
        if (on_) dock->hide();
      });
    });
  }
}

}  // namespace graft::ui
