#pragma once
// The History dock: every revision of the document as a tree (indented by depth), the current one
// marked; a click goes to that revision. Each revision shows its check against the original (max
// abs error, pass or fail at the Compare dock's tolerance) and its median forward time, computed
// in the background after each change (core/run/ledger), with a chart of both across revisions.
// Below, what the current revision changed vs its parent, counted and named as the Diff view does
// (core/edit/graph_diff, through provenance).
#include "core/document/change_event.h"
#include "core/io/input_specs.h"
#include "core/jobs/ledger.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QPointer>
#include <QtWidgets/QWidget>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>

class QListWidget;
class QListWidgetItem;
class QLabel;
class QPushButton;

class QChartView;
class QLineSeries;

namespace graft::core::model { class Document; }

namespace graft::ui {

class HistoryDock : public QWidget {
  Q_OBJECT
 public:
  explicit HistoryDock(QWidget* parent = nullptr);
  ~HistoryDock() override;
  // Another document (nullptr clears): the previous one's checks go. Not owned.
  void setDocument(const core::model::Document* document);
  // The open document changed: another document resets the list and its checks; a revision
  // added, made current or saved redraws it (the checks made stay).
  void documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event);
  void refresh();
  QListWidget* list() const { return list_; }
  // The two selected revisions (Ctrl+click selects a second one), lower index first; empty
  // unless exactly two are selected.
  QVector<int> selectedPair() const;

  // What the ledger's checks run with: inputs (null when the model needs some given first) and
  // the tolerance.
  struct CheckSetup {
    core::model::InputsPtr inputs;
    double atol = 1e-5, rtol = 1e-4;
    bool elementwise = false;
    QString device;  // where each revision runs: the Compare dock's B (ssh://HOST/DEVICE: on that host)
  };
  void setCheckSetup(std::function<CheckSetup()> setup) { checkSetup_ = std::move(setup); }
  // The ledger entry of revision `index`, when its check has finished.
  const core::jobs::LedgerEntry* ledgerEntry(int index) const;
  bool checking() const { return watcher_.isRunning(); }
  // Whether the checks wait for inputs (the model records none and none were given): the rows
  // say "waiting for inputs".
  bool waitingForInputs() const { return waitingForInputs_; }
  // Forgets the checks (after the inputs or tolerance changed) and starts again.
  void recheck();
  // The most weight bytes an original may hold for its baseline to be checked while it is the only
  // revision (at open); a larger one's waits for a second revision. 64 MiB unless set.
  void setBaselineAtOpenLimit(qint64 bytes) { baselineAtOpenLimit_ = bytes; }

 Q_SIGNALS:
  void diffRequested(int a, int b);
  // A plain click on a revision: the user wants it current (DocumentController::setCurrent).
  void revisionChosen(int index);
  void ledgerUpdated();

 private:
  void checkNext();
  QString ledgerText(int index) const;
  // A revision's row: indented by its depth in the tree, its name and its check.
  void showRow(QListWidgetItem* item) const;
  void updateChart();
  bool baselineAtOpen();

  QPointer<const core::model::Document> document_;
  QListWidget* list_ = nullptr;
  QLabel* diffSummary_ = nullptr;
  QListWidget* diff_ = nullptr;  // scrolls: a rule with many matches never grows the window
  QPushButton* diffButton_ = nullptr;
  QChartView* chart_ = nullptr;
  QLineSeries* errorSeries_ = nullptr;
  QLineSeries* timeSeries_ = nullptr;
  bool savingForHost_ = false;  // a revision is being saved to run it on a host (checkNext waits)
  std::function<CheckSetup()> checkSetup_;
  std::map<int, std::shared_ptr<const core::jobs::LedgerEntry>> ledger_;
  QFutureWatcher<core::jobs::LedgerEntry> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  int checking_ = -1;    // the revision being checked
  bool baselineAlone_ = false;  // the original's entry was timed before any revision (cold)
  bool waitingForInputs_ = false;  // the model records no inputs and none were given yet
  int generation_ = 0;   // bumped when the document or the setup changes: late results are dropped
  int runGeneration_ = 0;
  qint64 baselineAtOpenLimit_ = qint64(64) << 20;
  std::optional<qint64> originalWeightBytes_;  // counted once per document, from sizes alone
};

}  // namespace graft::ui
