#include "ui/document/busy_indicator.h"

#include "ui/document/document_controller.h"

#include <QtWidgets/QStatusBar>

namespace graft::ui {

BusyIndicator::BusyIndicator(DocumentController* controller, QStatusBar* bar) : QProgressBar(bar) {
  setObjectName(QStringLiteral("busyIndicator"));
  setRange(0, 0);  // no known end: a bar that moves
  setMaximumWidth(160);
  hide();
  bar->addPermanentWidget(this);
  connect(controller, &DocumentController::busyChanged, this, [this, bar](const QString& what) {
    setVisible(!what.isEmpty());
    // The message ends with the job ("Applying rules…" must not stay), unless another replaced it.
    if (!what.isEmpty()) bar->showMessage(what);
    else if (!shown_.isEmpty() && bar->currentMessage() == shown_) bar->clearMessage();
    shown_ = what;
  });
}

}  // namespace graft::ui
