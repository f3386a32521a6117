#include "ui/profile/profile_dock.h"

#include "core/io/input_specs.h"

#include "core/profile/paired_times.h"

#include "core/run/compare_job.h"

#include "core/io/atomic_write.h"
#include "core/model/document.h"
#include "core/model/job_guard.h"
#include "core/profile/profile_job.h"
#include "core/report/profile_report.h"
#include "core/remote/remote_device.h"
#include "core/remote/remote_model.h"
#include "core/remote/remote_profile.h"
#include "ui/device_list.h"
#include "ui/document/off_thread.h"
#include "ui/document/saved_for_host.h"
#include "ui/fit_screen.h"
#include "ui/input_dialog.h"
#include "ui/profile/profile_charts.h"
#include "ui/profile/timeline_view.h"

#include <QtConcurrent/QtConcurrent>
#include <QtWidgets/QHeaderView>
#include <QtWidgets/QTableWidget>
#include <QtCore/QJsonDocument>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QFormLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QProgressBar>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QScrollArea>
#include <QtWidgets/QCheckBox>
#include <QtWidgets/QComboBox>
#include <QtWidgets/QSpinBox>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QTabWidget>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

namespace {
// A wrapped label without height-for-width. QLabel turns it back on with every setText, and
// once it reaches the dock's scroll area the body is laid out at its preferred height (charts
// 230 pixels high, their axes below the dock's edge) rather than fitted to the dock.
class FixedLinesLabel : public QLabel {
 public:
  using QLabel::QLabel;
  bool hasHeightForWidth() const override { return false; }
};
}  // namespace

namespace {
QString kIdleSummary() {
  return ProfileDock::tr("Profiles time every node of the original and the current revision over repeated runs.");
}
}  // namespace

ProfileDock::ProfileDock(QWidget* parent) : QDockWidget(tr("Profile"), parent) {
  setObjectName(QStringLiteral("profileDock"));
  auto* body = new QWidget(this);
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 2, 4, 2);  // docked at 1366x768 every pixel of height goes to the charts
  layout->setSpacing(3);
  auto* controls = new QHBoxLayout();
  inputSpec_ = new QLineEdit(body);
  inputSpec_->setObjectName(QStringLiteral("profileInput"));
  inputSpec_->setPlaceholderText(tr("default: the model's inputs; e.g. 1x3x224x224"));
  inputSpec_->setToolTip(core::io::inputFieldHelp(nullptr));
  runs_ = new QSpinBox(body);
  runs_->setObjectName(QStringLiteral("profileRuns"));
  runs_->setRange(1, 1000);
  runs_->setValue(20);
  warmup_ = new QSpinBox(body);
  warmup_->setRange(0, 100);
  warmup_->setValue(3);
  device_ = new QComboBox(body);
  device_->setObjectName(QStringLiteral("profileDevice"));
  refreshDevices();
  device_->setToolTip(
      tr("Where to run: CUDA is offered when this machine has it (each node's GPU kernels are then recorded); a "
         "host added in Run > Devices… is timed over ssh"));
  memory_ = new QCheckBox(tr("Memory"), body);
  memory_->setObjectName(QStringLiteral("profileMemory"));
  memory_->setToolTip(tr("Also record the bytes each node allocates and the peak, in one extra node-by-node run"));
  runButton_ = new QPushButton(tr("Profile original && current"), body);
  runButton_->setObjectName(QStringLiteral("profileRun"));
  cancelButton_ = new QPushButton(tr("Cancel"), body);
  exportButton_ = new QPushButton(tr("Export trace…"), body);
  progress_ = new QProgressBar(body);
  progress_->setMaximumWidth(160);
  controls->addWidget(new QLabel(tr("Inputs:"), body));
  controls->addWidget(inputSpec_, 2);
  controls->addWidget(new QLabel(tr("Runs:"), body));
  controls->addWidget(runs_);
  controls->addWidget(new QLabel(tr("Warm-up:"), body));
  controls->addWidget(warmup_);
  controls->addWidget(device_);
  controls->addWidget(memory_);
  controls->addWidget(runButton_);
  controls->addWidget(cancelButton_);
  controls->addWidget(progress_);
  controls->addWidget(exportButton_);
  layout->addLayout(controls);
  summary_ = new FixedLinesLabel(kIdleSummary(), body);
  summary_->setObjectName(QStringLiteral("profileSummary"));
  summary_->setWordWrap(true);
  // A wrapped label asks, as its minimum, for the height of its narrowest layout (a dozen lines),
  // which would push the charts below the dock's edge: two lines are its minimum here.
  summary_->setMinimumHeight(2 * summary_->fontMetrics().lineSpacing() + 4);
  // And no more: the height the dock has left goes to the timeline and charts.
  summary_->setMaximumHeight(summary_->minimumHeight());
  summary_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  // Docked on a 1366x768 screen the dock is about 300 pixels high: the timeline and the charts
  // stand side by side in the first tab, the paired node times in the second, so nothing is
  // left below the dock's edge.
  tabs_ = new QTabWidget(body);
  tabs_->setObjectName(QStringLiteral("profileTabs"));
  tabs_->setDocumentMode(true);
  auto* split = new QSplitter(Qt::Horizontal, tabs_);
  split->setObjectName(QStringLiteral("profileTimelineCharts"));
  split->setChildrenCollapsible(false);
  timeline_ = new TimelineView(split);
  auto* scroll = new QScrollArea(split);
  scroll->setWidget(timeline_);
  scroll->setWidgetResizable(true);
  scroll->setMinimumWidth(260);
  charts_ = new ProfileCharts(split);
  nodeTable_ = new QTableWidget(0, 4, tabs_);
  nodeTable_->setObjectName(QStringLiteral("profileNodeTable"));
  nodeTable_->setHorizontalHeaderLabels({tr("Node or change"), tr("Before ms"), tr("After ms"), tr("After / before")});
  nodeTable_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  nodeTable_->verticalHeader()->setVisible(false);
  nodeTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  nodeTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(nodeTable_, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (auto* item = nodeTable_->item(row, 0)) Q_EMIT nodeClicked(item->data(Qt::UserRole).toULongLong());
  });
  split->addWidget(scroll);
  split->addWidget(charts_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 2);
  tabs_->addTab(split, tr("Timeline and charts"));
  tabs_->addTab(nodeTable_, tr("Node times"));
  // On CUDA a node's host time is its launch; what it costs is its kernels' device time.
  costMetric_ = new QComboBox(tabs_);
  costMetric_->setObjectName(QStringLiteral("profileCostMetric"));
  costMetric_->addItems({tr("Heatmap: kernel time"), tr("Heatmap: host time")});
  costMetric_->setToolTip(
      tr("What the cost heatmap colours nodes by: the device time of the GPU kernels each node launched, or its time "
         "on the host"));
  costMetric_->setVisible(false);
  tabs_->setCornerWidget(costMetric_, Qt::TopRightCorner);
  connect(costMetric_, &QComboBox::currentIndexChanged, this, [this] {
    if (after_) Q_EMIT costsChanged();
  });
  layout->addWidget(tabs_, 1);
  setWidget(scrollable(body));

  connect(runButton_, &QPushButton::clicked, this, &ProfileDock::start);
  connect(cancelButton_, &QPushButton::clicked, this, &ProfileDock::cancel);
  connect(exportButton_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Chrome trace"), QStringLiteral("profile.json"),
                                                      tr("Chrome trace (*.json)"));
    QString error;
    if (!path.isEmpty() && !exportTrace(path, &error)) summary_->setText(error);
  });
  connect(timeline_, &TimelineView::nodeClicked, this, &ProfileDock::nodeClicked);
  connect(&watcher_, &QFutureWatcher<Result>::finished, this, &ProfileDock::showResult);
  connect(&watcher_, &QFutureWatcher<Result>::progressValueChanged, progress_, &QProgressBar::setValue);
  setRunning(false);
}

ProfileDock::~ProfileDock() {
  cancel();
  watcher_.waitForFinished();
}

void ProfileDock::documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event) {
  if (event.replacesDocument()) setDocument(document);
}

void ProfileDock::setDocument(const core::model::Document* document) {
  cancel();
  watcher_.waitForFinished();
  ++generation_;  // a result still on its way belongs to the previous document
  document_ = document;
  before_.reset();
  after_.reset();
  revBefore_.reset();
  revAfter_.reset();
  // Every result of the previous model goes: summary, charts and node times.
  timeline_->setTracks({});
  charts_->clear();
  showNodeTimes();  // no rows, no kernel columns
  summary_->setText(kIdleSummary());
  inputSpec_->setText(document_ ? InputDialog::remembered(document_->sourcePath()) : QString());
  inputSpec_->setToolTip(core::io::inputFieldHelp(document_));
  setRunning(false);
}

bool ProfileDock::isRunning() const { return watcher_.isRunning(); }

QString ProfileDock::summaryText() const { return summary_->text(); }

void ProfileDock::setRunning(bool running) {
  runButton_->setEnabled(!running && document_);
  cancelButton_->setEnabled(running);
  exportButton_->setEnabled(!running && after_.has_value());
  progress_->setVisible(running);
}

void ProfileDock::start() {
  if (!document_ || isRunning()) return;
  const auto original = document_->original();
  const auto current = document_->current();
  const bool both = document_->currentIndex() != 0;
  beforeLabel_ = tr("original");
  afterLabel_ = both ? tr("rev %1").arg(document_->currentIndex()) : tr("original");
  revBefore_ = original;
  revAfter_ = both ? current : original;
  // The inputs are resolved off the GUI thread while it waits (input files reach 4 GiB), by the
  // path every job shares; the profile job then gets immutable snapshots, never the document.
  const auto resolved = runOffGuiThread(
      [doc = document_.data(), text = inputSpec_->text()] { return core::io::resolveInputs(*doc, text, 0); });
  if (!resolved.inputs) {
    if (resolved.missingShape >= 0) {
      askInputs(document_, inputSpec_, this, [this] { start(); });
      return;
    }
    summary_->setText(tr("Profiling failed: %1").arg(resolved.error));
    Q_EMIT diagnosticsReported({core::model::Diagnostic::error(QStringLiteral("profile"), resolved.error)});
    Q_EMIT finished(false, resolved.error);
    return;
  }
  const core::model::InputsPtr inputs = resolved.snapshot();
  runGeneration_ = generation_;
  if (const QString spec = device_->currentData().toString(); core::remote::isRemoteDevice(spec))
    return startRemote(spec, inputs, both);
  core::profile::ProfileOptions options;
  options.runs = runs_->value();
  options.warmup = warmup_->value();
  options.device = device_->currentData().toString();
  options.recordMemory = memory_->isChecked();
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  auto flag = cancelFlag_;
  const int total = (options.runs + options.warmup) * (both ? 2 : 1);
  progress_->setRange(0, total);
  progress_->setValue(0);
  summary_->setText(tr("Profiling…"));
  setRunning(true);
  watcher_.setFuture(QtConcurrent::run([=](QPromise<Result>& promise) {
    Result r;
    int offset = 0;
    auto opts = options;
    opts.progress = [&](int done, int) {
      promise.setProgressValue(offset + done);
      return !flag->load();
    };
    // runProfile is the job boundary: nothing is thrown out of the worker (Qt would rethrow it).
    auto after = core::profile::runProfile(current, *inputs, opts);
    r.after = after.profile;
    r.diagnostics = after.diagnostics;
    if (after.ok() && both && !r.after->cancelled) {
      offset = options.runs + options.warmup;
      auto before = core::profile::runProfile(original, *inputs, opts);
      r.before = before.profile;
      r.diagnostics = before.diagnostics;
    } else if (after.ok() && !both) {
      r.before = r.after;
    }
    if (!r.diagnostics.empty()) r.error = r.diagnostics.front().message;
    promise.addResult(std::move(r));
  }));
  setRunning(true);
}

void ProfileDock::startRemote(const QString& spec, const std::shared_ptr<const core::model::InputSet>& inputs,
                              bool both) {
  const auto refuse = [this](const QString& why) {
    summary_->setText(tr("Profiling failed: %1").arg(why));
    Q_EMIT diagnosticsReported({core::model::Diagnostic::error(QStringLiteral("profile"), why)});
    Q_EMIT finished(false, why);
  };
  QString error;
  const auto device = core::remote::parseRemoteDevice(spec, &error);
  if (!device) return refuse(error);
  if (memory_->isChecked())
    return refuse(
        tr("memory is recorded on this machine only: clear Memory to time the revisions on %1").arg(device->host));
  // The job holds no Document (the window may close it meanwhile): both revisions are saved here,
  // as File > Save does, and the worker sends those bytes.
  summary_->setText(tr("Saving the revisions to send them to %1…").arg(device->host));
  using Model = std::shared_ptr<const core::remote::RemoteModel>;
  const int generation = generation_;
  const Model after = savedForHost(*document_, revAfter_, &error);
  const Model before = both && after ? savedForHost(*document_, revBefore_, &error) : after;
  if (generation != generation_ || !document_) return;  // another model was opened meanwhile
  if (!after || !before) return refuse(error);
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  const auto progress = [this, generation](const QString& line) {
    QMetaObject::invokeMethod(this, [this, generation, line] {
      if (generation == generation_ && isRunning()) summary_->setText(line);
    }, Qt::QueuedConnection);
  };
  progress_->setRange(0, 0);  // the host reports lines, not a count
  summary_->setText(tr("Profiling on %1…").arg(device->host));
  setRunning(true);
  watcher_.setFuture(QtConcurrent::run([=, device = *device, revAfter = revAfter_, revBefore = revBefore_,
                                        runs = runs_->value(), warmup = warmup_->value(), flag = cancelFlag_] {
    Result r;
    const auto timed = [&](const Model& model, const core::model::RevisionPtr& revision) {
      auto out = core::remote::profileRemote(*model, revision, *inputs, runs, warmup, device, 0, progress, flag.get());
      if (!out.profile) r.error = out.error;
      return out.profile;
    };
    r.after = timed(after, revAfter);
    r.before = !r.after ? std::nullopt : both ? timed(before, revBefore) : r.after;
    if (flag->load()) return Result{};  // cancelled: shown as such, not as a failure
    if (!r.error.isEmpty()) r.diagnostics = {core::model::Diagnostic::error(QStringLiteral("profile"), r.error)};
    return r;
  }));
}

void ProfileDock::refreshDevices() { fillDeviceCombo(device_); }

bool ProfileDock::setDevice(const QString& label) {
  const int i = device_->findText(label);
  if (i >= 0) device_->setCurrentIndex(i);
  return i >= 0;
}

void ProfileDock::cancel() {
  if (cancelFlag_) cancelFlag_->store(true);
}

QString ProfileDock::speedupText() const {
  if (!before_ || !after_) return {};
  const auto s = core::profile::speedup(*before_, *after_);
  // The ratio is before/after per paired run; a claim only where its median's interval excludes 1.
  const QString measured = tr("ratio %1×, interval %2–%3× over %4 paired runs")
                               .arg(s.median, 0, 'f', 2)
                               .arg(s.low, 0, 'f', 2)
                               .arg(s.high, 0, 'f', 2)
                               .arg(s.pairs);
  if (s.faster())
    return tr("%1 is %2× faster than %3 (%4).").arg(afterLabel_).arg(s.median, 0, 'f', 2).arg(beforeLabel_, measured);
  if (s.slower())
    return tr("%1 is %2× slower than %3 (%4).")
        .arg(afterLabel_)
        .arg(1 / std::max(1e-12, s.median), 0, 'f', 2)
        .arg(beforeLabel_, measured);
  return tr("%1 → %2: no measurable difference (%3).").arg(beforeLabel_, afterLabel_, measured);
}

QString ProfileDock::memoryText() const {
  if (!before_ || !after_ || !after_->memoryRecorded) return {};
  auto mib = [](qint64 bytes) { return QStringLiteral("%1 MiB").arg(bytes / 1048576.0, 0, 'f', 2); };
  if (beforeLabel_ == afterLabel_) return tr("Peak memory: %1.").arg(mib(after_->peakBytes));
  return tr("Peak memory: %1 %2 → %3 %4.")
      .arg(beforeLabel_, mib(before_->peakBytes), afterLabel_, mib(after_->peakBytes));
}

void ProfileDock::showResult() {
  Result r = watcher_.future().resultCount() ? watcher_.result() : Result{};
  if (runGeneration_ != generation_) r = Result{};  // shown as cancelled
  setRunning(false);
  if (!r.error.isEmpty()) {
    summary_->setText(tr("Profiling failed: %1").arg(r.error));
    Q_EMIT diagnosticsReported(r.diagnostics);
    Q_EMIT finished(false, r.error);
    return;
  }
  if (!r.after || r.after->cancelled || !r.before || r.before->cancelled) {
    summary_->setText(tr("Profiling cancelled."));
    Q_EMIT finished(false, tr("cancelled"));
    return;
  }
  before_ = r.before;
  after_ = r.after;
  showProfilesNow();
}

void ProfileDock::showProfiles(const core::profile::Profile& before, const core::profile::Profile& after) {
  if (!document_ || isRunning()) return;
  const bool both = document_->currentIndex() != 0;
  beforeLabel_ = tr("original");
  afterLabel_ = both ? tr("rev %1").arg(document_->currentIndex()) : tr("original");
  revBefore_ = document_->original();
  revAfter_ = both ? document_->current() : document_->original();
  before_ = both ? before : after;
  after_ = after;
  showProfilesNow();
}

void ProfileDock::showProfilesNow() {
  const bool both = beforeLabel_ != afterLabel_;
  QVector<TimelineView::Track> tracks{{beforeLabel_, &*before_}};
  QVector<ProfileCharts::Series> series{{beforeLabel_, &*before_}};
  if (both) {
    tracks.push_back({afterLabel_, &*after_});
    series.push_back({afterLabel_, &*after_});
  }
  timeline_->setTracks(tracks);
  charts_->setProfiles(series);
  showNodeTimes();
  QString text =
      tr("%1: median %2 ms (p10 %3, p90 %4) over %5 runs; the module's own forward: %6 ms (profiling overhead %7×).")
          .arg(afterLabel_)
          .arg(after_->run.median, 0, 'f', 3)
          .arg(after_->run.p10, 0, 'f', 3)
          .arg(after_->run.p90, 0, 'f', 3)
          .arg(after_->runMs.size())
          .arg(after_->forward.median, 0, 'f', 3)
          .arg(after_->run.median / std::max(1e-9, after_->forward.median), 0, 'f', 2);
  if (both) text += QLatin1Char(' ') + speedupText();
  if (const QString memory = memoryText(); !memory.isEmpty()) text += QLatin1Char(' ') + memory;
  if (const QString kernels = kernelText(); !kernels.isEmpty()) text += QLatin1Char(' ') + kernels;
  summary_->setText(text);
  exportButton_->setEnabled(true);
  Q_EMIT costsChanged();
  Q_EMIT finished(true, text);
}

QString ProfileDock::kernelText() const {
  if (!after_) return {};
  if (!after_->kernelsRecorded)
    return after_->kernelNote.isEmpty() ? QString() : tr("GPU kernels not recorded: %1.").arg(after_->kernelNote);
  const double perRun = double(after_->kernels.size()) / std::max<qsizetype>(1, after_->runMs.size());
  QString text = tr("GPU kernels: %1 ms per run (median), %2 kernels per run")
                     .arg(after_->kernel.median, 0, 'f', 3)
                     .arg(perRun, 0, 'f', 0);
  if (after_->unattributedKernels > 0) text += tr(", %1 launched outside every node").arg(after_->unattributedKernels);
  return text + QLatin1Char('.');
}

void ProfileDock::showNodeTimes() {
  nodeTable_->setRowCount(0);
  // Kernel columns only where a side recorded GPU kernels: a CPU profile shows none, not empty ones.
  const bool kernels = (before_ && before_->kernelsRecorded) || (after_ && after_->kernelsRecorded);
  QStringList headers{tr("Node or change"), tr("Before ms"), tr("After ms"), tr("After / before")};
  if (kernels) headers << tr("Kernel ms before") << tr("Kernel ms after") << tr("Kernels");
  nodeTable_->setColumnCount(int(headers.size()));
  nodeTable_->setHorizontalHeaderLabels(headers);
  for (int c = 1; c < headers.size(); ++c)
    nodeTable_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  costMetric_->setVisible(after_ && after_->kernelsRecorded);
  if (!before_ || !after_ || !revBefore_ || !revAfter_) return;
  const auto rows = core::profile::pairNodeTimes(*before_, *revBefore_, *after_, *revAfter_);
  nodeTable_->setRowCount(int(rows.size()));
  for (int i = 0; i < int(rows.size()); ++i) {
    const auto& r = rows[size_t(i)];
    auto* what = new QTableWidgetItem(r.label);
    what->setData(Qt::UserRole, QVariant::fromValue<qulonglong>(r.after));
    if (r.change)
      what->setToolTip(
          tr("Compared as one: the time of the nodes this change replaced against the time of what replaced them"));
    nodeTable_->setItem(i, 0, what);
    nodeTable_->setItem(i, 1, new QTableWidgetItem(QString::number(r.beforeMs, 'f', 3)));
    nodeTable_->setItem(i, 2, new QTableWidgetItem(QString::number(r.afterMs, 'f', 3)));
    nodeTable_->setItem(
        i, 3,
        new QTableWidgetItem(r.beforeMs > 0 ? QStringLiteral("%1×").arg(r.afterMs / r.beforeMs, 0, 'f', 2)
                                            : QStringLiteral("—")));
    if (kernels) {
      nodeTable_->setItem(i, 4,
                          new QTableWidgetItem(before_->kernelsRecorded ? QString::number(r.beforeKernelMs, 'f', 3)
                                                                        : QStringLiteral("—")));
      nodeTable_->setItem(i, 5,
                          new QTableWidgetItem(after_->kernelsRecorded ? QString::number(r.afterKernelMs, 'f', 3)
                                                                       : QStringLiteral("—")));
      nodeTable_->setItem(
          i, 6, new QTableWidgetItem(after_->kernelsRecorded ? QString::number(r.afterKernels) : QStringLiteral("—")));
    }
  }
}

QHash<core::model::NodeId, double> ProfileDock::nodeDeltas() const {
  QHash<core::model::NodeId, double> deltas;
  if (!before_ || !after_ || !revBefore_ || !revAfter_ || revBefore_ == revAfter_) return deltas;
  const bool kernels = costsAreKernelTimes() && before_->kernelsRecorded;
  for (const auto& r : core::profile::pairNodeTimes(*before_, *revBefore_, *after_, *revAfter_)) {
    const double change = kernels ? r.afterKernelMs - r.beforeKernelMs : r.afterMs - r.beforeMs;
    for (auto id : r.afterNodes) deltas.insert(id, change / double(r.afterNodes.size()));
  }
  return deltas;
}

bool ProfileDock::costsAreKernelTimes() const {
  return after_ && after_->kernelsRecorded && costMetric_->currentIndex() == 0;
}

QHash<core::model::NodeId, double> ProfileDock::nodeCosts() const {
  QHash<core::model::NodeId, double> costs;
  const bool kernels = costsAreKernelTimes();
  if (after_)
    for (const auto& n : after_->nodes) costs.insert(n.node, kernels ? n.kernelMs.median : n.selfMs.median);
  return costs;
}

bool ProfileDock::exportTrace(const QString& path, QString* error) const {
  if (!after_) {
    if (error) *error = tr("Run a profile first.");
    return false;
  }
  const QByteArray json =
      QJsonDocument(core::report::chromeTrace(*after_, document_ ? document_->displayName() : QString()))
          .toJson(QJsonDocument::Compact);
  if (const QString why = core::io::writeAtomically(path, json); !why.isEmpty()) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, why);
    return false;
  }
  return true;
}

}  // namespace graft::ui
