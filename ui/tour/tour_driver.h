#pragma once
// What a tour does to the main window: the actions of "Do it for me" (run one after another,
// each waiting for the layout, comparison or profile it starts), the state the done-conditions
// are checked against, and the highlights of a step (docks framed, canvas nodes outlined).
#include "core/tour/tour_state.h"
#include "ui/workbench.h"

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTimer>
#include <functional>
#include <memory>
#include <optional>

class QDockWidget;

namespace graft::ui {

class HighlightOverlay;

class TourDriver : public QObject {
  Q_OBJECT
 public:
  // `parts`: the window's, which the tour's actions drive.
  TourDriver(const Workbench& parts, QObject* parent);
  ~TourDriver() override;

  // Before `tour` starts (TourPanel::begin): a tour teaches on its own sample, so started over
  // another model (or over that sample edited) it opens the sample first, asking
  // Save/Discard/Cancel about unsaved work; then the Tour dock is shown on the left. False when
  // the tour should not start (Cancel, or the sample did not open).
  bool prepare(const core::tour::Tour& tour);
  // The tour `spec` names (a built-in tour id or a tour file); a malformed one is shown as an
  // error box with its line and column, and nullopt is returned.
  std::optional<core::tour::Tour> resolve(const QString& spec);

  core::tour::State state() const;
  // Whether a layout, comparison, profile or action chain is still running.
  bool busy() const;

  // Runs `actions` in order; `done` gets an empty string on success, else what went wrong.
  void perform(const QVector<core::tour::Action>& actions, std::function<void(const QString&)> done);
  // Shows and frames the step's docks and outlines its nodes (re-resolved when the revision
  // changes); an empty highlight clears them.
  void setHighlight(const core::tour::Highlight& highlight);
  // The dock widget for a tour's dock name, or nullptr.
  QDockWidget* dock(const QString& name) const;
  // Where `save` actions write (a temporary folder unless set).
  void setSaveFolder(const QString& folder) { saveFolder_ = folder; }
  QString lastSavedPath() const { return lastSaved_; }

 private:
  // One action; returns an error or an empty string. Asynchronous work it starts is awaited
  // through busy().
  QString run(const core::tour::Action& action);
  void next();
  void refreshHighlight();
  QString saveAndReload(const QString& file);

  const Workbench& parts_;
  QVector<core::tour::Action> queue_;
  std::function<void(const QString&)> done_;
  QTimer poll_;
  int idleTicks_ = 0;
  bool running_ = false;
  core::tour::Highlight highlight_;
  std::vector<std::unique_ptr<HighlightOverlay>> overlays_;
  int comparedRevision_ = -1;  // the revision index B of the last finished comparison
  bool savedLoads_ = false;
  QString lastSaved_, saveFolder_;
  std::unique_ptr<QTemporaryDir> tempDir_;
};

}  // namespace graft::ui
