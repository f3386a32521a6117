#pragma once
// The Profile dock: profiles the original and the current revision on the same inputs in a
// worker thread, then shows both timelines one above the other, the charts, and the speedup.
#include "core/document/change_event.h"
#include "core/model/diagnostic.h"
#include "core/model/document.h"
#include "core/model/revision.h"
#include "core/profile/profile.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QPointer>
#include <QtWidgets/QDockWidget>
#include <atomic>
#include <optional>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QCheckBox;
class QComboBox;
class QSpinBox;
class QTableWidget;
class QTabWidget;

namespace graft::core::model { struct InputSet; }

namespace graft::ui {

class ProfileCharts;
class TimelineView;

class ProfileDock : public QDockWidget {
  Q_OBJECT
 public:
  explicit ProfileDock(QWidget* parent = nullptr);
  ~ProfileDock() override;
  // Another document (nullptr clears): the previous one's profiles go. Not owned.
  void setDocument(const core::model::Document* document);
  // The open document changed: another document resets the dock; another revision keeps the
  // profiles made (they name their revisions).
  void documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event);

  // Starts profiling (original and, when it differs, current); finished() follows. On a remote
  // device (ssh://HOST/DEVICE) both revisions are saved here and timed on the host.
  void start();
  void cancel();
  // The devices offered: this machine's and the hosts of Run > Devices… (ui/device_list.h).
  void refreshDevices();
  // Chooses the device whose label is `label` ("cpu", "ssh://gpu-box/cuda:0"); false when not offered.
  bool setDevice(const QString& label);
  bool isRunning() const;
  const std::optional<core::profile::Profile>& before() const { return before_; }
  const std::optional<core::profile::Profile>& after() const { return after_; }
  QString speedupText() const;
  // "Peak memory: original 9.48 MiB → rev 1 9.48 MiB"; empty unless memory was recorded.
  QString memoryText() const;
  ProfileCharts* charts() const { return charts_; }
  // The summary line above the charts ("Speedup …", or what to do first).
  QString summaryText() const;
  // Shows profiles of the original and the current revision made elsewhere (a profile read back,
  // a synthetic one in a test) exactly as a run of the dock shows its own.
  void showProfiles(const core::profile::Profile& before, const core::profile::Profile& after);
  // Median cost per node of the current revision's profile (empty before a run): its self time,
  // or where the profile recorded GPU kernels and "kernel time" is chosen (the default there),
  // the device time of the kernels it launched. The canvas's cost heatmap is drawn from this.
  QHash<core::model::NodeId, double> nodeCosts() const;
  // Whether nodeCosts() and nodeDeltas() are kernel times (only with kernels recorded).
  bool costsAreKernelTimes() const;
  // Per node of the current revision, the change of self time against the original, paired
  // through provenance (a change's time against what it replaced, shared by its nodes); empty
  // unless both were profiled.
  QHash<core::model::NodeId, double> nodeDeltas() const;
  // Node times of the original and the current revision paired through provenance: one row per
  // unchanged node and per change (the folded conv against conv + batch_norm).
  QTableWidget* nodeTable() const { return nodeTable_; }
  // Writes the current revision's profile as Chrome-trace JSON (atomically).
  bool exportTrace(const QString& path, QString* error = nullptr) const;

 Q_SIGNALS:
  void finished(bool ok, const QString& message);
  void nodeClicked(core::model::NodeId id);
  void costsChanged();
  // Inputs that could not be made and failed runs, with the node that failed (Issues dock).
  void diagnosticsReported(const core::model::Diagnostics& diagnostics);

 private:
  struct Result {
    std::optional<core::profile::Profile> before, after;
    QString error;
    core::model::Diagnostics diagnostics;  // of the failure
  };
  void showResult();
  void showProfilesNow();
  void showNodeTimes();
  QString kernelText() const;
  void setRunning(bool running);
  // start() on a host: `inputs` resolved, both revisions saved here, then timed there.
  void startRemote(const QString& spec, const std::shared_ptr<const core::model::InputSet>& inputs, bool both);

  QPointer<const core::model::Document> document_;
  int generation_ = 0;     // counts setDocument calls
  int runGeneration_ = 0;  // generation_ when the running profile started
  QLineEdit* inputSpec_;
  QSpinBox* runs_;
  QSpinBox* warmup_;
  QComboBox* device_;
  QCheckBox* memory_;
  QPushButton* runButton_;
  QPushButton* cancelButton_;
  QPushButton* exportButton_;
  QProgressBar* progress_;
  QLabel* summary_;
  TimelineView* timeline_;
  ProfileCharts* charts_;
  QTableWidget* nodeTable_;
  QTabWidget* tabs_;
  QComboBox* costMetric_;  // heatmap from host self time or kernel time; shown with kernels only
  QFutureWatcher<Result> watcher_;
  std::shared_ptr<std::atomic<bool>> cancelFlag_;
  std::optional<core::profile::Profile> before_, after_;
  QString beforeLabel_, afterLabel_;
  core::model::RevisionPtr revBefore_, revAfter_;  // the revisions the running or shown profiles are of
};

}  // namespace graft::ui
