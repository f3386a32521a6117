#pragma once
// A moving bar in the status bar while the DocumentController runs a load, save, replay or rule
// application off the GUI thread; what runs is written beside it.
#include <QtWidgets/QProgressBar>

class QStatusBar;

namespace graft::ui {

class DocumentController;

class BusyIndicator : public QProgressBar {
  Q_OBJECT
 public:
  BusyIndicator(DocumentController* controller, QStatusBar* bar);

 private:
  QString shown_;  // the job's message while it runs
};

}  // namespace graft::ui
