#include "ui/tour/tour_panel.h"

#include "core/tour/tour_state.h"
#include "ui/tour/tour_driver.h"

#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QProgressBar>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QTextBrowser>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

TourPanel::TourPanel(TourDriver* driver, QWidget* parent) : QWidget(parent), driver_(driver) {
  setObjectName(QStringLiteral("tourPanel"));
  auto* column = new QVBoxLayout(this);
  tourTitle_ = new QLabel(this);
  tourTitle_->setObjectName(QStringLiteral("tourTitle"));
  tourTitle_->setWordWrap(true);
  stepTitle_ = new QLabel(this);
  stepTitle_->setObjectName(QStringLiteral("tourStepTitle"));
  stepTitle_->setWordWrap(true);
  text_ = new QTextBrowser(this);
  text_->setObjectName(QStringLiteral("tourText"));
  text_->setOpenExternalLinks(false);
  // Code wraps at the panel's edge instead of running out of sight.
  text_->document()->setDefaultStyleSheet(QStringLiteral("pre { white-space: pre-wrap; }"));
  followFont();
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("tourStatus"));
  status_->setWordWrap(true);
  progress_ = new QProgressBar(this);
  progress_->setObjectName(QStringLiteral("tourProgress"));
  progress_->setFormat(tr("Step %v of %m"));
  back_ = new QPushButton(tr("◀ Back"), this);
  next_ = new QPushButton(tr("Next ▶"), this);
  doIt_ = new QPushButton(tr("Do it for me"), this);
  back_->setObjectName(QStringLiteral("tourBack"));
  next_->setObjectName(QStringLiteral("tourNext"));
  doIt_->setObjectName(QStringLiteral("tourDoIt"));
  auto* buttons = new QHBoxLayout();
  buttons->addWidget(back_);
  buttons->addWidget(doIt_, 1);
  buttons->addWidget(next_);
  column->addWidget(tourTitle_);
  column->addWidget(progress_);
  column->addWidget(stepTitle_);
  column->addWidget(text_, 1);
  column->addWidget(status_);
  column->addLayout(buttons);

  connect(back_, &QPushButton::clicked, this, [this] { goTo(step_ - 1); });
  connect(next_, &QPushButton::clicked, this, [this] {
    if (step_ + 1 < tour_.steps.size()) goTo(step_ + 1);
    else {
      stop();
      Q_EMIT finished();
    }
  });
  connect(doIt_, &QPushButton::clicked, this, &TourPanel::doItForMe);
  check_.setInterval(300);
  connect(&check_, &QTimer::timeout, this, &TourPanel::check);
  advance_.setSingleShot(true);
  advance_.setInterval(1500);
  connect(&advance_, &QTimer::timeout, this, [this] {
    if (stepMet() && step_ + 1 < tour_.steps.size()) goTo(step_ + 1);
  });
  stop();
}

void TourPanel::followFont() {
  // The title is set apart from the body by size, so it is set explicitly: it follows the panel's.
  QFont big = font();
  big.setBold(true);
  if (big.pointSizeF() > 0) big.setPointSizeF(big.pointSizeF() * kStepTitleScale);
  else big.setPixelSize(int(big.pixelSize() * kStepTitleScale));
  stepTitle_->setFont(big);
}

void TourPanel::changeEvent(QEvent* event) {
  // Presentation mode grows the font: the body and the title grow with it.
  if (event->type() == QEvent::FontChange) followFont();
  QWidget::changeEvent(event);
}

void TourPanel::begin(const core::tour::Tour& tour) {
  if (driver_->prepare(tour)) start(tour);
}

bool TourPanel::begin(const QString& spec) {
  const auto tour = driver_->resolve(spec);
  if (tour) begin(*tour);
  return tour.has_value();
}

void TourPanel::start(const core::tour::Tour& tour) {
  tour_ = tour;
  tourTitle_->setText(tr("<b>Tour:</b> %1").arg(tour_.title.toHtmlEscaped()));
  progress_->setRange(0, int(tour_.steps.size()));  // "%v of %m": step k of n
  for (auto* w : std::initializer_list<QWidget*>{back_, next_, doIt_, progress_}) w->setEnabled(true);
  check_.start();
  goTo(0);
}

void TourPanel::stop() {
  tour_ = {};
  step_ = 0;
  check_.stop();
  advance_.stop();
  driver_->setHighlight({});
  tourTitle_->setText(tr("<b>No tour running.</b>"));
  stepTitle_->clear();
  text_->setHtml(tr("<p>Start one from <b>Help &gt; Guided Tours</b> or from the start page.</p>"));
  status_->clear();
  for (auto* w : std::initializer_list<QWidget*>{back_, next_, doIt_, progress_}) w->setEnabled(false);
}

void TourPanel::goTo(int step) {
  if (!active() || step < 0 || step >= tour_.steps.size()) return;
  step_ = step;
  advance_.stop();
  // A condition that already holds when the step opens is not the learner's doing.
  metShown_ = stepMet();
  byUser_ = true;
  showStep();
  Q_EMIT stepShown(step_);
}

void TourPanel::showStep() {
  const auto& s = tour_.steps[step_];
  progress_->setValue(step_ + 1);
  stepTitle_->setText(s.title.toHtmlEscaped());
  text_->setHtml(s.text);
  back_->setEnabled(step_ > 0);
  next_->setText(step_ + 1 < tour_.steps.size() ? tr("Next ▶") : tr("Finish"));
  doIt_->setEnabled(!s.actions.isEmpty() && !running_);
  driver_->setHighlight(s.highlight);
  check();
}

bool TourPanel::stepMet() const {
  return active() && core::tour::evaluate(tour_.steps[step_].done, driver_->state()).met;
}

QStringList TourPanel::unmet() const {
  return active() ? core::tour::evaluate(tour_.steps[step_].done, driver_->state()).unmet : QStringList{};
}

void TourPanel::check() {
  if (!active()) return;
  if (running_ || driver_->busy()) {
    status_->setText(tr("<i>Working…</i>"));
    return;
  }
  const auto verdict = core::tour::evaluate(tour_.steps[step_].done, driver_->state());
  if (verdict.met) {
    status_->setText(
        tr("<span style='color:#2e7d32'>✔ Done.</span> %1")
            .arg(step_ + 1 < tour_.steps.size() ? tr("Press Next to go on.") : tr("That was the last step.")));
    if (!metShown_ && byUser_) advance_.start();
    metShown_ = true;
  } else {
    metShown_ = false;
    status_->setText(tr("<b>To do:</b> %1 — or press <i>Do it for me</i>.")
                         .arg(verdict.unmet.join(QStringLiteral("; ")).toHtmlEscaped()));
  }
}

void TourPanel::doItForMe() {
  if (!active() || running_) return;
  const int step = step_;
  running_ = true;
  byUser_ = false;
  doIt_->setEnabled(false);
  driver_->perform(tour_.steps[step].actions, [this, step](const QString& error) {
    running_ = false;
    doIt_->setEnabled(step_ == step && !tour_.steps.isEmpty() && !tour_.steps[step_].actions.isEmpty());
    if (!error.isEmpty())
      status_->setText(tr("<span style='color:#c62828'>Could not do it: %1</span>").arg(error.toHtmlEscaped()));
    else check();
    Q_EMIT actionsFinished(step, error);
  });
}

}  // namespace graft::ui
