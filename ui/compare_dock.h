#pragma once
// The Compare dock: pick revisions A and B of the open document, inputs, device and tolerances,
// run the comparison in a worker thread (cancellable) and list outputs and nodes pass/fail.
#include "core/document/change_event.h"
#include "core/run/compare_job.h"
#include "core/jobs/numerics_job.h"

#include "core/model/document.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QHash>
#include <QtCore/QPointer>
#include <QtWidgets/QWidget>
#include <atomic>
#include <functional>
#include <optional>
#include <memory>

class QAction;
class QComboBox;
class QLineEdit;
class QCheckBox;
class QPushButton;
class QLabel;
class QTableWidget;
class QToolButton;
class QSplitter;

namespace graft::core::remote { struct RemoteCompareSummary; }

namespace graft::ui {

class TensorInspector;

class CompareDock : public QWidget {
  Q_OBJECT
 public:
  explicit CompareDock(QWidget* parent = nullptr);
  ~CompareDock() override;

  // Another document whose revisions are offered (nullptr clears): the previous one's results go.
  // Not owned.
  void setDocument(const core::model::Document* document);
  // The open document changed (DocumentController::documentChanged): another document resets the
  // dock; another current revision keeps the results and offers the new revision.
  void documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event);
  void setInputSpec(const QString& spec);
  // The inputs and tolerance as the dock's fields give them (the History ledger checks with them).
  QString inputSpec() const;
  double atol() const;
  double rtol() const;
  // Whether the tolerance fields judge (elementwise, as torch.allclose); unchecked, the verdict
  // comes from the rounding model.
  bool elementwise() const;
  void setElementwise(bool on);
  bool isRunning() const;
  const core::run::CompareSummary& summary() const { return summary_; }
  // The document whose revisions are offered, and revision B of the last comparison started
  // (null before one): the canvas draws a comparison's marks on that revision only.
  const core::model::Document* document() const { return document_; }
  core::model::RevisionPtr comparedRevisionB() const { return lastRequest_ ? lastRequest_->b : nullptr; }
  QTableWidget* table() const { return table_; }
  // The verdict line above the table: "Equal within rounding — within float32 rounding (SQNR
  // 130 dB)", "Different — … First divergence: …", or what is under way or went wrong.
  QString verdictText() const;
  QLabel* verdictLabel() const { return verdict_; }
  // Empty while the shown result is for the revisions and settings now picked; else the line that
  // says what it was computed for ("Out of date: computed for 0 → 1; now 0 → 2 — Compare again.").
  QString staleText() const;
  // Asks for the open model's inputs in the dialog Compare uses (when the model records none),
  // writes the answer into the Inputs field and calls `then`.
  void askForInputs(std::function<void()> then);
  TensorInspector* inspector() const { return inspector_; }
  // Whether the last comparison is drawn on the canvas (the "show on canvas" box).
  bool overlayEnabled() const;
  // Shows node `id`'s tensors in the inspector when the last comparison kept them.
  void inspectNode(core::model::NodeId id);
  // B's precision: "" (as saved), "float16", "bfloat16", "float32" or "float64". The tolerance
  // fields follow the lower precision unless they were edited.
  void setPrecisionB(const QString& dtype);
  // Device B: this machine's devices and the hosts' of Run > Devices… (ui/device_list), by label
  // ("cpu", "cuda:0", "ssh://gpu-box/cuda:0"). A remote B runs through core/remote on a worker.
  QStringList devicesB() const;
  bool setDeviceB(const QString& label);
  // Re-reads the device list (after the Devices dialog changed it), keeping the choice.
  void refreshDevices();
  // Where B runs, as a job names it ("cpu", "ssh://gpu-box/cuda:0?python=…"); the History ledger
  // runs each revision there too.
  QString deviceBSpec() const;
  // Opens the Devices dialog (Run > Devices…); the dock follows its changes.
  QAction* devicesAction() const { return devicesAction_; }
  // The last remote run's traffic ("gpu-box: sent 44.8 MB, …"); empty after a local one.
  QString remoteTraffic() const { return remoteTraffic_; }

  // The error each compared node shows, by the metric chosen under "Error on canvas", as heat
  // (larger is worse); empty when the metric is off or nothing was compared. `title`, `low` and
  // `high` label the legend.
  enum class ErrorMetric { Off, MaxAbs, MaxRel, Cosine, Sqnr, Local };
  void setErrorMetric(ErrorMetric metric);
  QHash<core::model::NodeId, double> errorHeat(QString* title = nullptr, QString* low = nullptr,
                                               QString* high = nullptr) const;

  // The numerics debugger on the last comparison (a failing one at another precision or device,
  // A and B the same revision): the smallest failing subgraph, and the nodes to keep in float32.
  void reduce();
  void findFloat32Nodes();
  const core::jobs::ReduceSummary& reduceSummary() const { return reduce_; }
  const core::jobs::Float32Summary& float32Summary() const { return float32_; }
  // Writes the reduced subgraph as a standalone .pt2; empty when it worked, else why not.
  QString saveReducedAs(const QString& path);

 public Q_SLOTS:
  void start();
  void cancel();

 Q_SIGNALS:
  // The hosts of Run > Devices… changed (the Profile dock offers them too).
  void devicesChanged();
  void finished();
  void nodeActivated(core::model::NodeId id);
  void overlayToggled(bool on);
  // The error heat changed (a new result or another metric): errorHeat() has it.
  void errorHeatChanged();
  // A comparison's error or differing outputs, and inputs that could not be made (Issues dock).
  void diagnosticsReported(const core::model::Diagnostics& diagnostics);
  // reduce() finished (reduceSummary() has it); findFloat32Nodes() finished with nodes to keep.
  void reduceFinished();
  void float32Found();

 private:
  void refreshRevisions();
  void showSummary();
  void setVerdict(const QString& text, const QString& colour);
  // What the fields pick now, in the words of the stale line ("0 → 2", "inputs 1x8, cpu, float16").
  QString pickedRevisions() const;
  QString pickedSettings() const;
  // Greys the shown result and says so when the picks moved away from what it was computed for.
  void markStale();
  void addRow(const core::run::CompareRow& row);
  void precisionChanged();
  void updateNumericsButtons();
  // Runs `job` on a worker thread, then `onDone` on this one (unless another model was opened).
  void runNumericsJob(const std::function<void()>& job, const std::function<void()>& onDone);
  // Starts `req` with B on the host of `spec` (ssh://…); false when it could not start (said).
  bool startRemote(core::run::CompareRequest req, const QString& spec);
  // `req` is the comparison now running (local or remote): the buttons say so, and the returned
  // flag cancels it.
  std::shared_ptr<std::atomic<bool>> beginRun(const core::run::CompareRequest& req);
  void failToStart(const QString& error);
  // Shows the tensor view of node `id` beside the table, keeping the table's numbers in view: the
  // settings column steps aside when the dock is too narrow for both.
  void inspectRow(core::model::NodeId id, const QString& title);

  QPointer<const core::model::Document> document_;
  QComboBox* revA_ = nullptr;
  QComboBox* revB_ = nullptr;
  QLineEdit* inputs_ = nullptr;
  QComboBox* device_ = nullptr;
  QComboBox* deviceB_ = nullptr;
  QAction* devicesAction_ = nullptr;
  QString remoteLabel_;    // the running or shown remote B's device ("gpu-box:cuda:0, NVIDIA H100, torch 2.11.0")
  QString remoteTraffic_;
  std::shared_ptr<core::remote::RemoteCompareSummary> remoteRun_;  // the running remote job's device and traffic
  QLineEdit* atol_ = nullptr;
  QLineEdit* rtol_ = nullptr;
  QCheckBox* elementwise_ = nullptr;
  QComboBox* dtypeA_ = nullptr;
  QComboBox* dtypeB_ = nullptr;
  QCheckBox* autocast_ = nullptr;
  QCheckBox* castsAsWritten_ = nullptr;
  QComboBox* metric_ = nullptr;
  std::pair<double, double> shownDefault_{1e-5, 1e-4};  // the tolerance the fields were last set to
  QCheckBox* perNode_ = nullptr;
  QCheckBox* overlay_ = nullptr;
  QPushButton* run_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* reduceButton_ = nullptr;
  QPushButton* float32Button_ = nullptr;
  QPushButton* saveRepro_ = nullptr;
  std::optional<core::run::CompareRequest> lastRequest_;  // what the shown comparison ran
  core::jobs::ReduceSummary reduce_;
  core::jobs::Float32Summary float32_;
  QFutureWatcher<void> numericsWatcher_;
  QLabel* verdict_ = nullptr;
  QString verdictColour_;
  QLabel* stale_ = nullptr;  // "Out of date: computed for …", shown only then
  // What the shown result was computed for (empty: nothing shown, or it is running).
  QString shownRevisions_, shownSettings_;
  QString runSettings_;  // the settings of the comparison started last
  QLabel* status_ = nullptr;  // what the verdict line leaves out: changes, the culprit, reduce
  QTableWidget* table_ = nullptr;
  TensorInspector* inspector_ = nullptr;
  QSplitter* tableAndTensors_ = nullptr;
  QWidget* settingsColumn_ = nullptr;
  QToolButton* settingsToggle_ = nullptr;  // shows or hides settingsColumn_
  QFutureWatcher<core::run::CompareSummary> watcher_;
  std::shared_ptr<std::atomic<bool>> cancelFlag_;
  core::run::CompareSummary summary_;
  int generation_ = 0;     // counts setDocument calls
  int runGeneration_ = 0;  // generation_ when the running comparison started
};

}  // namespace graft::ui
