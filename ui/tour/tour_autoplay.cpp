#include "ui/tour/tour_autoplay.h"

#include "ui/compare_dock.h"
#include "ui/main_docks.h"
#include "ui/tour/tour_driver.h"
#include "ui/tour/tour_panel.h"

#include <QtCore/QDir>
#include <QtCore/QSet>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QMainWindow>
#include <QtGui/QPixmap>

#include <algorithm>

namespace graft::ui {

namespace {
constexpr int kPollMs = 100;
constexpr int kPanelWidth = 360;  // the Tour panel in the pictures
QString stepName(const core::tour::Tour& tour, int step) {
  return QStringLiteral("step %1/%2 \"%3\"").arg(step + 1).arg(tour.steps.size()).arg(tour.steps[step].title);
}
}  // namespace

TourAutoplay::TourAutoplay(const Workbench& parts, QString screenshotDir, QObject* parent)
    : QObject(parent), parts_(parts), dir_(std::move(screenshotDir)) {
  connect(parts_.tourPanel, &TourPanel::actionsFinished, this, [this](int step, const QString& error) {
    if (exitCode_ >= 0) return;
    if (!error.isEmpty()) return fail(step, QStringLiteral("\"Do it for me\" failed: %1").arg(error));
    waitForCondition(step, 0);
  });
}

void TourAutoplay::start() {
  size_ = parts_.window->size();
  if (!dir_.isEmpty() && !QDir().mkpath(dir_)) {
    exitCode_ = 2;
    message_ = QStringLiteral("cannot create the screenshot folder %1").arg(dir_);
    Q_EMIT finished(exitCode_);
    return;
  }
  runStep(0);
}

void TourAutoplay::runStep(int step) {
  auto* panel = parts_.tourPanel;
  // Course-material framing: the canvas, the Tour panel and the docks the step is about (its
  // actions may show more), so every picture fits the window's size.
  QSet<QDockWidget*> keep{parts_.tourDriver->dock(QStringLiteral("tour"))};
  for (const QString& name : panel->tour().steps[step].highlight.docks) keep.insert(parts_.tourDriver->dock(name));
  for (auto* dock : parts_.window->findChildren<QDockWidget*>())
    if (!keep.contains(dock)) dock->hide();
  panel->goTo(step);
  parts_.window->resizeDocks({parts_.tourDriver->dock(QStringLiteral("tour"))}, {kPanelWidth}, Qt::Horizontal);
  panel->doItForMe();  // with no actions it reports at once
}

void TourAutoplay::waitForCondition(int step, int idleMs) {
  auto* panel = parts_.tourPanel;
  // Only idle time counts: a long comparison or layout is work, not a missed condition. Once
  // nothing runs, the state changes no more, so a short grace period is enough.
  const bool busy = parts_.tourDriver->busy();
  if (!busy && panel->stepMet()) return stepMet(step);
  if (!busy && idleMs >= timeoutMs_)
    return fail(step, QStringLiteral("condition not met: %1").arg(panel->unmet().join(QStringLiteral("; "))));
  const int next = busy ? 0 : idleMs + kPollMs;
  QTimer::singleShot(kPollMs, this, [this, step, next] { waitForCondition(step, next); });
}

QString verdictMismatch(const core::tour::Step& step, const QString& verdictText) {
  const bool compares = std::any_of(step.actions.begin(), step.actions.end(),
                                    [](const core::tour::Action& a) { return a.kind == QLatin1String("compare"); });
  if (!compares) return {};
  // "Exact — bit-identical": the verdict's words before the reason, as the Compare dock shows them.
  const QString words = verdictText.section(QStringLiteral(" — "), 0, 0).trimmed();
  if (words.isEmpty()) return QStringLiteral("the comparison shows no verdict");
  if (!step.text.contains(words))
    return QStringLiteral("the step's text does not name the verdict the app shows (\"%1\")").arg(verdictText);
  return {};
}

void TourAutoplay::stepMet(int step) {
  const auto& tour = parts_.tourPanel->tour();
  // What the step says is what the app then says: a step that compares names the verdict shown.
  if (const QString why = verdictMismatch(tour.steps[step], parts_.docks->compare->verdictText()); !why.isEmpty())
    return fail(step, why);
  if (!dir_.isEmpty()) {
    if (size_.isValid()) parts_.window->resize(size_);
    const QString file = QDir(dir_).filePath(QStringLiteral("step-%1.png").arg(step + 1, 2, 10, QLatin1Char('0')));
    if (!parts_.window->grab().save(file)) return fail(step, QStringLiteral("cannot write %1").arg(file));
  }
  Q_EMIT progress(QStringLiteral("%1: ok").arg(stepName(tour, step)));
  if (step + 1 < tour.steps.size()) {
    QTimer::singleShot(0, this, [this, step] { runStep(step + 1); });
    return;
  }
  exitCode_ = 0;
  message_ = QStringLiteral("tour \"%1\": all %2 steps done").arg(tour.title).arg(tour.steps.size());
  Q_EMIT finished(exitCode_);
}

void TourAutoplay::fail(int step, const QString& why) {
  exitCode_ = 1;
  message_ = QStringLiteral("%1: %2").arg(stepName(parts_.tourPanel->tour(), step), why);
  Q_EMIT finished(exitCode_);
}

}  // namespace graft::ui
