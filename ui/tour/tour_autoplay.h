#pragma once
// Headless replay (`graft --tour ID --autoplay --screenshot-dir DIR`): every step in order,
// "Do it for me", then its done-condition; one PNG of the window per step, showing the canvas,
// the Tour panel and the docks the step highlights. Finishes with 0 when
// every condition was met, 1 naming the first step whose condition was not (or whose action failed,
// or whose text does not name the comparison verdict the app showed).
#include "core/tour/tour.h"
#include "ui/workbench.h"

#include <QtCore/QObject>
#include <QtCore/QSize>
#include <QtCore/QTimer>

namespace graft::ui {

// Empty when `step` runs no comparison or its text names the verdict the app shows
// (`verdictText`, e.g. "Exact — bit-identical" names "Exact"); else what is wrong.
QString verdictMismatch(const core::tour::Step& step, const QString& verdictText);

class TourAutoplay : public QObject {
  Q_OBJECT
 public:
  // `screenshotDir` may be empty (no pictures). The tour must already be started in the window
  // whose parts these are (MainWindow::parts()).
  TourAutoplay(const Workbench& parts, QString screenshotDir, QObject* parent = nullptr);
  void start();
  int exitCode() const { return exitCode_; }
  const QString& message() const { return message_; }
  // How long a step's condition may stay unmet while nothing runs, once its actions are done.
  void setStepTimeoutMs(int ms) { timeoutMs_ = ms; }

 Q_SIGNALS:
  // One line per step as it passes ("step 2/7 'Find the Linear layers': ok").
  void progress(const QString& line);
  void finished(int exitCode);

 private:
  void runStep(int step);
  void waitForCondition(int step, int idleMs);
  void stepMet(int step);
  void fail(int step, const QString& why);

  const Workbench& parts_;
  QString dir_;
  int exitCode_ = -1;
  QString message_;
  int timeoutMs_ = 3000;
  QSize size_;  // the window's size at start: pictures are taken at it
};

}  // namespace graft::ui
