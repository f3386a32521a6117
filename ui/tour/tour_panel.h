#pragma once
// The Tour panel: the step's title and text, what is still to do, Back / Next / "Do it for me",
// and the progress. It checks the step's done-condition a few times a second; when the learner
// meets it themselves the tour moves on after a moment, after "Do it for me" it waits for Next
// so the result can be read.
#include "core/tour/tour.h"

#include <QtCore/QTimer>
#include <QtWidgets/QWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class QTextBrowser;

namespace graft::ui {

class TourDriver;

class TourPanel : public QWidget {
  Q_OBJECT
 public:
  TourPanel(TourDriver* driver, QWidget* parent = nullptr);

  // Help > Tours and the start page: prepares the window for `tour` (TourDriver::prepare: its
  // sample open, the dock shown), then starts it. `spec` names a built-in tour or a tour file.
  void begin(const core::tour::Tour& tour);
  bool begin(const QString& spec);
  // Shows the tour's first step (the window as it is).
  void start(const core::tour::Tour& tour);
  void stop();
  bool active() const { return !tour_.steps.isEmpty(); }
  const core::tour::Tour& tour() const { return tour_; }
  int stepIndex() const { return step_; }
  void goTo(int step);
  // Runs the current step's actions; stepDone follows when its condition then holds.
  void doItForMe();
  // Whether the current step's condition holds now.
  bool stepMet() const;
  QStringList unmet() const;
  // The step title's size against the body text's.
  static constexpr double kStepTitleScale = 1.25;

 Q_SIGNALS:
  void stepShown(int step);
  // The step's actions finished; `error` is empty when they ran.
  void actionsFinished(int step, const QString& error);
  void finished();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void check();
  void showStep();
  void followFont();

  TourDriver* driver_;
  core::tour::Tour tour_;
  int step_ = 0;
  bool metShown_ = false, byUser_ = true, running_ = false;
  QTimer check_, advance_;
  QLabel* tourTitle_;
  QLabel* stepTitle_;
  QTextBrowser* text_;
  QLabel* status_;
  QProgressBar* progress_;
  QPushButton* back_;
  QPushButton* next_;
  QPushButton* doIt_;
};

}  // namespace graft::ui
