#include "ui/compare_dock.h"

#include "core/model/document.h"
#include "core/remote/remote_compare.h"
#include "core/remote/remote_compare_job.h"
#include "core/remote/remote_model.h"
#include "core/report/verdict_line.h"
#include "core/run/threads.h"
#include "core/run/culprit.h"
#include "core/io/input_specs.h"
#include "ui/document/off_thread.h"
#include "ui/document/saved_for_host.h"
#include "ui/device_list.h"
#include "ui/devices_dialog.h"
#include "ui/input_dialog.h"
#include "ui/tensor_inspector.h"

#include <QtConcurrent/QtConcurrent>
#include <QtCore/QTimer>
#include <QtGui/QAction>
#include <QtGui/QDoubleValidator>
#include <QtWidgets/QCheckBox>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QComboBox>
#include <QtWidgets/QFormLayout>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QHeaderView>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QScrollArea>
#include <QtWidgets/QScrollBar>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QToolButton>
#include <QtWidgets/QVBoxLayout>

#include <cmath>

namespace graft::ui {

namespace {
enum Column { kWhat, kOp, kMaxAbs, kMaxRel, kMismatched, kCosine, kSqnr, kLocal, kResult, kColumns };

QString precisionLabel(const QString& dtype) { return dtype.isEmpty() ? QObject::tr("as saved") : dtype; }

// The inputs, devices and precisions of a comparison, as the stale line names them.
QString settingsOf(const QString& inputs, const QString& deviceA, const QString& deviceB, const QString& dtypeA,
                   const QString& dtypeB) {
  return QObject::tr("inputs “%1”, %2 → %3, %4 → %5")
      .arg(inputs.isEmpty() ? QObject::tr("default") : inputs, deviceA, deviceB, precisionLabel(dtypeA),
           precisionLabel(dtypeB));
}
}  // namespace

CompareDock::CompareDock(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout();
  revA_ = new QComboBox(this);
  revB_ = new QComboBox(this);
  revA_->setObjectName(QStringLiteral("compareRevA"));
  revB_->setObjectName(QStringLiteral("compareRevB"));
  inputs_ = new QLineEdit(this);
  inputs_->setPlaceholderText(tr("default: the model's input shape; e.g. 1x3x224x224:float32; file.npy"));
  inputs_->setObjectName(QStringLiteral("compareInputs"));
  inputs_->setToolTip(core::io::inputFieldHelp(nullptr));
  device_ = new QComboBox(this);
  deviceB_ = new QComboBox(this);
  device_->addItems(core::run::availableDevices());
  deviceB_->setObjectName(QStringLiteral("compareDeviceB"));
  deviceB_->setToolTip(
      tr("Where B runs: this machine, or a host added in Run > Devices… (B's model is sent over ssh; A and "
         "the float64 reference run here)"));
  devicesAction_ = new QAction(tr("&Devices…"), this);
  devicesAction_->setObjectName(QStringLiteral("devicesAction"));
  devicesAction_->setToolTip(tr("Add hosts reached with ssh whose CPU and GPUs can run B, and test their connection"));
  connect(devicesAction_, &QAction::triggered, this, [this] {
    auto* dialog = new DevicesDialog(window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &DevicesDialog::hostsChanged, this, &CompareDock::refreshDevices);
    dialog->open();
  });
  refreshDevices();
  atol_ = new QLineEdit(QStringLiteral("1e-5"), this);
  rtol_ = new QLineEdit(QStringLiteral("1e-4"), this);
  atol_->setValidator(new QDoubleValidator(0, 1e9, 12, atol_));
  rtol_->setValidator(new QDoubleValidator(0, 1e9, 12, rtol_));
  elementwise_ = new QCheckBox(tr("elementwise"), this);
  elementwise_->setObjectName(QStringLiteral("compareElementwise"));
  elementwise_->setToolTip(
      tr("Unchecked: equal means within the rounding the precisions and devices explain (A is also run at "
         "float64 for reference). Checked: every element within atol + rtol * |b|, as torch.allclose."));
  atol_->setEnabled(false);
  rtol_->setEnabled(false);
  connect(elementwise_, &QCheckBox::toggled, atol_, &QWidget::setEnabled);
  connect(elementwise_, &QCheckBox::toggled, rtol_, &QWidget::setEnabled);
  dtypeA_ = new QComboBox(this);
  dtypeB_ = new QComboBox(this);
  dtypeA_->setObjectName(QStringLiteral("comparePrecisionA"));
  dtypeB_->setObjectName(QStringLiteral("comparePrecisionB"));
  for (const QString& d : core::run::availablePrecisions()) {
    dtypeA_->addItem(precisionLabel(d), d);
    dtypeB_->addItem(precisionLabel(d), d);
  }
  dtypeA_->setToolTip(tr("Run A with its floating weights and inputs cast to this dtype (float64 for a reference)"));
  dtypeB_->setToolTip(tr("Run B at this precision, as model.half() would: each node's own (local) error is measured "
                         "too, and the node that introduces the error is named"));
  autocast_ = new QCheckBox(tr("autocast"), this);
  autocast_->setToolTip(
      tr("B keeps reductions and normalisations (softmax, layer_norm, sum, …) in float32, as torch.autocast does"));
  castsAsWritten_ = new QCheckBox(tr("casts as written"), this);
  castsAsWritten_->setObjectName(QStringLiteral("compareCastsAsWritten"));
  castsAsWritten_->setToolTip(
      tr("Unticked, B at float16 is the model under model.half(): dtypes the capture recorded from the model's "
         "float32 (x.to(y.device), .to(h.dtype)) and torch.finfo extremes follow float16. Ticked, B runs this "
         "program's own ops at float16, its float32 casts as written."));
  metric_ = new QComboBox(this);
  metric_->setObjectName(QStringLiteral("compareErrorMetric"));
  metric_->addItem(tr("off"), int(ErrorMetric::Off));
  metric_->addItem(tr("max abs (inherited + local)"), int(ErrorMetric::MaxAbs));
  metric_->addItem(tr("max relative"), int(ErrorMetric::MaxRel));
  metric_->addItem(tr("1 − cosine"), int(ErrorMetric::Cosine));
  metric_->addItem(tr("SQNR (dB)"), int(ErrorMetric::Sqnr));
  metric_->addItem(tr("local error (the node's own)"), int(ErrorMetric::Local));
  metric_->setToolTip(tr("Colour the canvas by each node's error against A. Local error: the node run once more on "
                         "A's own inputs at B's precision, so what it adds itself shows apart from what it received"));
  perNode_ = new QCheckBox(tr("compare every node"), this);
  perNode_->setChecked(true);
  form->addRow(tr("A"), revA_);
  form->addRow(tr("B"), revB_);
  form->addRow(tr("Inputs"), inputs_);
  auto* devices = new QHBoxLayout();
  devices->addWidget(device_);
  devices->addWidget(new QLabel(tr("B on"), this));
  devices->addWidget(deviceB_, 1);
  auto* hosts = new QToolButton(this);
  hosts->setText(QStringLiteral("…"));
  hosts->setToolTip(devicesAction_->toolTip());
  connect(hosts, &QToolButton::clicked, devicesAction_, &QAction::trigger);
  devices->addWidget(hosts);
  form->addRow(tr("Device A"), devices);
  auto* precisions = new QHBoxLayout();
  precisions->addWidget(dtypeA_);
  precisions->addWidget(new QLabel(tr("B at"), this));
  precisions->addWidget(dtypeB_);
  precisions->addStretch(1);
  form->addRow(tr("Precision A"), precisions);
  // How B's lower precision runs, on a row of its own so the form stays narrow at 1366x768.
  auto* lowered = new QHBoxLayout();
  lowered->addWidget(autocast_);
  lowered->addWidget(castsAsWritten_);
  lowered->addStretch(1);
  form->addRow(QString(), lowered);
  auto* tols = new QHBoxLayout();
  tols->addWidget(elementwise_);
  tols->addWidget(new QLabel(tr("atol"), this));
  tols->addWidget(atol_);
  tols->addWidget(new QLabel(tr("rtol"), this));
  tols->addWidget(rtol_);
  form->addRow(tr("Tolerance"), tols);
  overlay_ = new QCheckBox(tr("show on canvas"), this);
  overlay_->setObjectName(QStringLiteral("compareOverlay"));
  overlay_->setChecked(true);
  overlay_->setToolTip(tr("Outline compared nodes on the canvas: green within tolerance, red beyond it, "
                          "dark red for the first divergence or the node where a run failed"));
  auto* options = new QHBoxLayout();
  options->addWidget(perNode_);
  options->addWidget(overlay_);
  options->addStretch(1);
  form->addRow(QString(), options);
  form->addRow(tr("Error on canvas"), metric_);

  run_ = new QPushButton(tr("Compare"), this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  reduceButton_ = new QPushButton(tr("Reduce"), this);
  reduceButton_->setObjectName(QStringLiteral("compareReduce"));
  reduceButton_->setToolTip(tr("Find the smallest subgraph that still fails when fed A's values at its boundary "
                               "(the comparison must fail at another precision or device, A and B the same revision)"));
  float32Button_ = new QPushButton(tr("Keep in float32"), this);
  float32Button_->setObjectName(QStringLiteral("compareKeepFloat32"));
  float32Button_->setToolTip(tr("Find a small set of nodes to keep in float32 so that B at float16 or bfloat16 passes, "
                                "and add it as a revision with casts around them"));
  saveRepro_ = new QPushButton(tr("Save .pt2…"), this);
  saveRepro_->setToolTip(
      tr("Save the reduced subgraph as a standalone .pt2 whose sample inputs are its boundary values"));
  settingsToggle_ = new QToolButton(this);
  settingsToggle_->setObjectName(QStringLiteral("compareSettingsToggle"));
  settingsToggle_->setText(tr("Settings"));
  settingsToggle_->setCheckable(true);
  settingsToggle_->setChecked(true);
  settingsToggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  settingsToggle_->setArrowType(Qt::LeftArrow);
  settingsToggle_->setToolTip(tr("Show or hide the settings column (A, B, inputs, devices, precision, tolerance)"));
  auto* buttons = new QHBoxLayout();
  buttons->addWidget(settingsToggle_);
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  buttons->addWidget(reduceButton_);
  buttons->addWidget(float32Button_);
  buttons->addWidget(saveRepro_);
  buttons->addStretch(1);

  table_ = new QTableWidget(0, kColumns, this);
  table_->setHorizontalHeaderLabels({tr("Output / module"), tr("Op"), tr("max abs"), tr("max rel"), tr("mismatched"),
                                     tr("cosine"), tr("SQNR dB"), tr("local max abs"), tr("Result")});
  table_->horizontalHeaderItem(kLocal)->setToolTip(
      tr("The error the node introduces itself: run on A's own inputs at B's precision"));
  // The numbers stay in view in a narrow dock: names and ops get a fixed share (their full
  // text in the cell's tooltip), the numbers their width.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  for (int c : {kWhat, kOp}) {
    table_->horizontalHeader()->setSectionResizeMode(c, QHeaderView::Interactive);
    table_->setColumnWidth(c, c == kWhat ? 150 : 130);
  }
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  inspector_ = new TensorInspector(this);
  // Side by side: the table stays readable while a node's tensors are inspected.
  auto* split = tableAndTensors_ = new QSplitter(Qt::Horizontal, this);
  split->setObjectName(QStringLiteral("compareTableAndTensors"));
  split->addWidget(table_);
  split->addWidget(inspector_);
  split->setChildrenCollapsible(false);
  split->setStretchFactor(0, 3);  // the table's columns first; the inspector shows one node
  split->setStretchFactor(1, 2);
  inspector_->setVisible(false);  // until a row is inspected: the table has the width

  // The verdict and the first rows come first: on a 1366x768 screen the bottom dock is about 300
  // pixels high, so the settings sit in a column of their own at the left (scrolling there when
  // short), and the verdict line, the buttons and the table take the rest, unscrolled.
  verdict_ = new QLabel(tr("Pick A and B, then Compare."), this);
  verdict_->setObjectName(QStringLiteral("compareVerdict"));
  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  stale_ = new QLabel(this);
  stale_->setObjectName(QStringLiteral("compareStale"));
  stale_->setWordWrap(true);
  stale_->setStyleSheet(QStringLiteral("QLabel { color: #ef6c00; font-weight: bold; }"));
  stale_->hide();
  status_->setObjectName(QStringLiteral("compareStatus"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* settings = new QWidget(this);
  settings->setObjectName(QStringLiteral("compareSettings"));
  settings->setLayout(form);
  form->setContentsMargins(0, 0, 4, 0);
  auto* settingsScroll = new QScrollArea(this);
  settingsColumn_ = settingsScroll;
  settingsScroll->setWidget(settings);
  settingsScroll->setWidgetResizable(true);
  settingsScroll->setFrameShape(QFrame::NoFrame);
  settingsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  settingsScroll->setMinimumWidth(settings->minimumSizeHint().width() + 16);
  auto* results = new QWidget(this);
  auto* resultColumn = new QVBoxLayout(results);
  resultColumn->setContentsMargins(0, 0, 0, 0);
  resultColumn->addWidget(stale_);
  resultColumn->addWidget(verdict_);
  resultColumn->addLayout(buttons);
  resultColumn->addWidget(status_);
  resultColumn->addWidget(split, 1);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  auto* columns = new QSplitter(Qt::Horizontal, this);
  columns->setObjectName(QStringLiteral("compareColumns"));
  columns->setChildrenCollapsible(false);
  columns->addWidget(settingsScroll);
  columns->addWidget(results);
  columns->setStretchFactor(0, 0);
  columns->setStretchFactor(1, 1);
  columns->setSizes({settings->minimumSizeHint().width() + 16, 1000});
  connect(settingsToggle_, &QToolButton::toggled, this, [this](bool shown) {
    settingsColumn_->setVisible(shown);
    settingsToggle_->setArrowType(shown ? Qt::LeftArrow : Qt::RightArrow);
  });
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->addWidget(columns, 1);

  connect(run_, &QPushButton::clicked, this, &CompareDock::start);
  connect(reduceButton_, &QPushButton::clicked, this, &CompareDock::reduce);
  connect(float32Button_, &QPushButton::clicked, this, &CompareDock::findFloat32Nodes);
  connect(saveRepro_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the failing subgraph"),
                                                      QStringLiteral("repro.pt2"), tr("torch.export programs (*.pt2)"));
    if (path.isEmpty()) return;
    const QString why = saveReducedAs(path);
    status_->setText(why.isEmpty() ? tr("Saved %1: torch.export.load runs it on its sample inputs.").arg(path)
                                   : tr("Could not save: %1").arg(why));
  });
  connect(cancel_, &QPushButton::clicked, this, &CompareDock::cancel);
  connect(&watcher_, &QFutureWatcher<core::run::CompareSummary>::finished, this, [this] {
    summary_ = watcher_.result();
    if (remoteRun_) {
      if (!remoteRun_->deviceLabel.isEmpty()) remoteLabel_ = remoteRun_->deviceLabel;
      remoteTraffic_ = remoteRun_->traffic;
      remoteRun_.reset();
    }
    if (runGeneration_ != generation_) {
      // Another model was opened meanwhile: these results describe revisions no longer shown.
      summary_ = {};
      summary_.cancelled = true;
    }
    showSummary();
    Q_EMIT errorHeatChanged();
    run_->setEnabled(document_ != nullptr);
    reduce_ = {};
    float32_ = {};
    updateNumericsButtons();
    cancel_->setEnabled(false);
    if (const auto diagnostics = summary_.diagnostics(); !diagnostics.empty()) Q_EMIT diagnosticsReported(diagnostics);
    Q_EMIT finished();
  });
  // A result stays current only while the picks are those it was computed for.
  for (auto* box : {revA_, revB_, device_, deviceB_, dtypeA_, dtypeB_})
    connect(box, &QComboBox::currentIndexChanged, this, &CompareDock::markStale);
  connect(inputs_, &QLineEdit::textChanged, this, &CompareDock::markStale);
  connect(overlay_, &QCheckBox::toggled, this, &CompareDock::overlayToggled);
  connect(dtypeA_, &QComboBox::currentIndexChanged, this, &CompareDock::precisionChanged);
  connect(dtypeB_, &QComboBox::currentIndexChanged, this, &CompareDock::precisionChanged);
  connect(metric_, &QComboBox::currentIndexChanged, this, &CompareDock::errorHeatChanged);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    const auto id = table_->item(row, kWhat)->data(Qt::UserRole).toULongLong();
    if (id == core::model::kNoNode) return;
    inspectRow(id, table_->item(row, kWhat)->text() + QStringLiteral("  ") + table_->item(row, kOp)->text());
    Q_EMIT nodeActivated(id);
  });
  setDocument(nullptr);
}

CompareDock::~CompareDock() {
  cancel();
  watcher_.waitForFinished();
  numericsWatcher_.waitForFinished();
}

void CompareDock::documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event) {
  if (event.replacesDocument()) setDocument(document);
  else if (event.movesRevision()) refreshRevisions();
}

void CompareDock::setDocument(const core::model::Document* document) {
  cancel();  // a running comparison belongs to the previous document: stop it, drop its result
  ++generation_;
  document_ = document;
  summary_ = {};
  inputs_->setText(document_ ? InputDialog::remembered(document_->sourcePath()) : QString());
  inputs_->setToolTip(core::io::inputFieldHelp(document_));
  table_->setRowCount(0);
  shownRevisions_.clear();
  shownSettings_.clear();
  status_->clear();  // the last verdict was about the previous model
  setVerdict(document_ ? tr("Pick A and B, then Compare.") : tr("Open a model to compare its revisions."), QString());
  inspector_->clear();
  lastRequest_.reset();
  reduce_ = {};
  float32_ = {};
  updateNumericsButtons();
  Q_EMIT errorHeatChanged();
  run_->setEnabled(document_ != nullptr && !isRunning());
  refreshRevisions();
}

bool CompareDock::overlayEnabled() const { return overlay_->isChecked(); }

void CompareDock::inspectNode(core::model::NodeId id) {
  for (const auto& r : summary_.nodes)
    if (r.node == id && id != core::model::kNoNode) {
      inspectRow(id, r.label + QStringLiteral("  ") + r.op);
      return;
    }
}

void CompareDock::inspectRow(core::model::NodeId id, const QString& title) {
  // The width the table needs for every column, and the least the tensor view is readable in.
  const int frame = 2 * table_->frameWidth();
  const int tableWidth = table_->verticalHeader()->width() + table_->horizontalHeader()->length() + frame +
                         table_->verticalScrollBar()->sizeHint().width() + 12;  // and the splitter handle
  const int tensorsMin = std::max(inspector_->minimumSizeHint().width(), 420);
  if (settingsColumn_->isVisible() && tableAndTensors_->width() < tableWidth + tensorsMin)
    settingsToggle_->setChecked(false);
  inspector_->setVisible(true);
  inspector_->show(summary_, id, title);
  // Once the splitters have laid out what the settings left: the table its numbers, the tensors the rest.
  QTimer::singleShot(0, this, [this, tableWidth, tensorsMin] {
    const int room = tableAndTensors_->width();
    const int table = std::max(room / 2, std::min(tableWidth, room - tensorsMin));
    tableAndTensors_->setSizes({table, std::max(1, room - table)});
  });
}

void CompareDock::setInputSpec(const QString& spec) { inputs_->setText(spec); }
QString CompareDock::inputSpec() const { return inputs_->text(); }
double CompareDock::atol() const { return atol_->text().toDouble(); }
double CompareDock::rtol() const { return rtol_->text().toDouble(); }
bool CompareDock::elementwise() const { return elementwise_->isChecked(); }
void CompareDock::setElementwise(bool on) { elementwise_->setChecked(on); }

bool CompareDock::isRunning() const { return watcher_.isRunning(); }

void CompareDock::refreshRevisions() {
  revA_->clear();
  revB_->clear();
  if (!document_) return;
  for (int i = 0; i < document_->count(); ++i) {
    const QString label = QStringLiteral("%1: %2").arg(i).arg(document_->revision(i)->name());
    revA_->addItem(label, i);
    revB_->addItem(label, i);
  }
  revA_->setCurrentIndex(0);                         // the original
  revB_->setCurrentIndex(document_->currentIndex());  // against the current revision
}

void CompareDock::start() {
  if (!document_ || isRunning()) return;
  core::run::CompareRequest req;
  req.a = document_->revision(revA_->currentData().toInt());
  req.b = document_->revision(revB_->currentData().toInt());
  // The inputs are resolved off the GUI thread while it waits (input files reach 4 GiB); the
  // comparison job then gets immutable snapshots (the revisions, the inputs), never the document.
  const auto resolved = runOffGuiThread(
      [doc = document_.data(), text = inputs_->text()] { return core::io::resolveInputs(*doc, text, 0); });
  if (!resolved.inputs) {
    if (resolved.missingShape >= 0) askInputs(document_, inputs_, this, [this] { start(); });
    else {
      setVerdict(tr("Failed: %1").arg(resolved.error), QStringLiteral("#c62828"));
      Q_EMIT diagnosticsReported({core::model::Diagnostic::error(QStringLiteral("compare"), resolved.error)});
    }
    return;
  }
  req.inputs = resolved.snapshot();
  req.atol = atol_->text().toDouble();
  req.rtol = rtol_->text().toDouble();
  req.elementwise = elementwise_->isChecked();
  req.deviceA = device_->currentText();
  req.deviceB = deviceB_->currentData().toString();
  req.outputNames = document_->outputNames();
  req.dtypeA = dtypeA_->currentData().toString();
  req.dtypeB = dtypeB_->currentData().toString();
  req.autocastB = autocast_->isChecked();
  req.castsAsWritten = castsAsWritten_->isChecked();
  req.perNode = perNode_->isChecked();
  remoteLabel_.clear();
  remoteTraffic_.clear();
  if (core::remote::isRemoteDevice(req.deviceB)) {
    startRemote(req, req.deviceB);
    return;
  }
  const auto flag = beginRun(req);
  setVerdict(tr("Running…"), QString());
  // The request holds shared revision and input handles, so the worker never touches the document.
  watcher_.setFuture(QtConcurrent::run([req, flag] { return core::run::runCompare(req, flag.get()); }));
}

std::shared_ptr<std::atomic<bool>> CompareDock::beginRun(const core::run::CompareRequest& req) {
  lastRequest_ = req;
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  runGeneration_ = generation_;
  runSettings_ = pickedSettings();
  shownRevisions_.clear();  // what is shown now is the run under way
  shownSettings_.clear();
  markStale();
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  reduceButton_->setEnabled(false);
  float32Button_->setEnabled(false);
  status_->clear();
  return cancelFlag_;
}

void CompareDock::failToStart(const QString& error) {
  setVerdict(tr("Failed: %1").arg(error), QStringLiteral("#c62828"));
  status_->clear();
  Q_EMIT diagnosticsReported({core::model::Diagnostic::error(QStringLiteral("compare"), error)});
}

bool CompareDock::startRemote(core::run::CompareRequest req, const QString& spec) {
  QString error;
  const auto device = core::remote::parseRemoteDevice(spec, &error);
  if (!device) {
    failToStart(error);
    return false;
  }
  if (const QString why = core::remote::remoteRequestRefusal(req, document_->format() == QLatin1String("pt2"));
      !why.isEmpty()) {
    failToStart(why);
    return false;
  }
  // The job holds no Document (the window may close it meanwhile): B is saved here, as File >
  // Save does, and the worker sends those bytes.
  setVerdict(tr("Saving B to send it to %1…").arg(device->host), QString());
  const int generation = generation_;
  QString why;
  // B at another precision goes up as that program (core/remote/remote_compare.h revisionForHost).
  core::run::CompareRequest asked = req;
  asked.deviceB = device->device;
  core::run::CompareOptions options;
  core::model::RevisionPtr forHost;
  if (core::run::optionsFor(asked, options, &why))
    forHost = core::remote::revisionForHost(req.b, *req.inputs, options, &why);
  if (!forHost) {
    failToStart(QStringLiteral("B: %1").arg(why));
    return false;
  }
  const auto saved = savedForHost(*document_, forHost, &why);
  if (generation != generation_ || !document_) return false;  // another model was opened meanwhile
  if (!saved) {
    failToStart(QStringLiteral("B: %1").arg(why));
    return false;
  }
  const auto flag = beginRun(req);
  remoteLabel_ = device->host + QLatin1Char(':') + device->device;
  setVerdict(tr("Running B on %1…").arg(remoteLabel_), QString());
  // Progress lines come from the worker ("gpu-box: sending the model (44.7 MB, …)"); the dock
  // waits for the worker before it goes, so `this` outlives them.
  const auto progress = [this, generation](const QString& line) {
    QMetaObject::invokeMethod(this, [this, generation, line] {
      if (generation == generation_ && isRunning()) status_->setText(line);
    }, Qt::QueuedConnection);
  };
  remoteRun_ = std::make_shared<core::remote::RemoteCompareSummary>();
  watcher_.setFuture(QtConcurrent::run([req, model = saved, device = *device,
                                        threads = core::run::currentThreads(), flag, progress, out = remoteRun_] {
    *out = core::remote::runRemoteCompare(req, model, device, threads, progress, flag.get());
    return out->summary;
  }));
  return true;
}

void CompareDock::cancel() {
  if (cancelFlag_) cancelFlag_->store(true);
}

QStringList CompareDock::devicesB() const {
  QStringList labels;
  for (int i = 0; i < deviceB_->count(); ++i) labels << deviceB_->itemText(i);
  return labels;
}

bool CompareDock::setDeviceB(const QString& label) {
  const int i = deviceB_->findText(label);
  if (i >= 0) deviceB_->setCurrentIndex(i);
  return i >= 0;
}

QString CompareDock::deviceBSpec() const { return deviceB_->currentData().toString(); }

void CompareDock::refreshDevices() {
  fillDeviceCombo(deviceB_);
  Q_EMIT devicesChanged();
}

void CompareDock::addRow(const core::run::CompareRow& r) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("—"); };
  const QString sqnr = std::isinf(r.sqnrDb) && r.sqnrDb > 0 ? QStringLiteral("∞") : num(r.sqnrDb);
  const QString local = !r.hasLocal ? QString() : std::isfinite(r.localMaxAbs) ? num(r.localMaxAbs) : tr("overflow");
  // A node outside every module: "top level (change 1)", not "<top> (change 1)".
  QString label = r.label;
  if (label.startsWith(QLatin1String("<top>"))) label.replace(0, 5, tr("top level"));
  const QStringList cells{label, r.op, num(r.maxAbs), num(r.maxRel),
                          QStringLiteral("%1 / %2").arg(r.mismatched).arg(r.numel), num(r.cosine), sqnr, local,
                          r.pass ? tr("pass") : (r.note.isEmpty() ? tr("FAIL") : tr("FAIL: ") + r.note)};
  const QColor colour = r.pass ? QColor(200, 240, 200) : QColor(250, 200, 200);
  for (int c = 0; c < kColumns; ++c) {
    auto* item = new QTableWidgetItem(cells[c]);
    item->setBackground(colour);
    if (c == kWhat || c == kOp) item->setToolTip(cells[c]);
    if (c == kWhat) item->setData(Qt::UserRole, QVariant::fromValue<qulonglong>(r.node));
    table_->setItem(row, c, item);
  }
}

void CompareDock::showSummary() {
  table_->setRowCount(0);
  inspector_->clear();
  if (!summary_.ok) {
    setVerdict(summary_.cancelled ? tr("Cancelled.") : tr("Failed: %1").arg(summary_.error),
               summary_.cancelled ? QString() : QStringLiteral("#c62828"));
    status_->clear();
    return;
  }
  // One verdict from the rows shown below it: never "equal" beside a divergence. Its word and
  // reason are the ones the HTML report gives (core/report/verdict_line).
  const auto verdict = core::report::verdictLine(summary_);
  QString line = verdict.text();
  if (summary_.intermediateDivergence)
    line += tr(": %1 at %2 (max abs %3)")
                .arg(summary_.intermediateDivergence->op, summary_.intermediateDivergence->label)
                .arg(summary_.intermediateDivergence->maxAbs, 0, 'g', 4);
  else if (!summary_.equal && summary_.firstDivergence)
    line += tr(". First divergence: %1 at %2 (max abs %3)")
                .arg(summary_.firstDivergence->op, summary_.firstDivergence->label)
                .arg(summary_.firstDivergence->maxAbs, 0, 'g', 4);
  if (!remoteLabel_.isEmpty()) line += tr(" — B on %1").arg(remoteLabel_);
  setVerdict(line, verdict.good() ? QStringLiteral("#2e7d32")
                   : verdict.kind == core::report::VerdictLine::Kind::IntermediateDiffers ? QStringLiteral("#ef6c00")
                                                                                          : QStringLiteral("#c62828"));
  QString text;
  if (!summary_.changes.isEmpty())
    text += QLatin1Char(' ') +
            (summary_.changes.size() == 1
                 ? tr("1 change compared where its values leave it.")
                 : tr("%1 changes compared where their values leave them.").arg(summary_.changes.size()));
  if (summary_.culprit)
    text +=
        QLatin1Char(' ') + (std::isfinite(summary_.culprit->localScaled)
                                ? tr("The error is introduced at %1 (%2): run on A's inputs at %3, it is off by %4.")
                                      .arg(summary_.culprit->op, summary_.culprit->label, summary_.precisionB,
                                           core::run::shareOfScale(summary_.culprit->localScaled))
                                : tr("The error is introduced at %1 (%2): run on A's inputs at %3, it overflows.")
                                      .arg(summary_.culprit->op, summary_.culprit->label, summary_.precisionB));
  else if (summary_.localErrors && !summary_.equal)
    text +=
        QLatin1Char(' ') +
        tr("No node adds more than rounding noise at %1 on its own: the error accumulates.").arg(summary_.precisionB);
  if (!remoteTraffic_.isEmpty()) text += QLatin1Char(' ') + remoteTraffic_ + QLatin1Char('.');
  status_->setText(text.trimmed());
  for (const auto& r : summary_.outputs) addRow(r);
  for (const auto& r : summary_.nodes) addRow(r);
  // Stamped with what it ran for; the picks may have moved while it ran.
  if (lastRequest_ && document_) {
    const auto indexOf = [this](const core::model::RevisionPtr& r) {
      for (int i = 0; i < document_->count(); ++i)
        if (document_->revision(i) == r) return QString::number(i);
      return tr("a revision no longer in the history");
    };
    shownRevisions_ = QStringLiteral("%1 → %2").arg(indexOf(lastRequest_->a), indexOf(lastRequest_->b));
    shownSettings_ = runSettings_;
  }
  markStale();
}

QString CompareDock::pickedRevisions() const {
  return QStringLiteral("%1 → %2").arg(revA_->currentData().toInt()).arg(revB_->currentData().toInt());
}

QString CompareDock::pickedSettings() const {
  return settingsOf(inputs_->text(), device_->currentText(), deviceB_->currentData().toString(),
                    dtypeA_->currentData().toString(), dtypeB_->currentData().toString());
}

void CompareDock::markStale() {
  const QString why = staleText();
  stale_->setText(why);
  stale_->setVisible(!why.isEmpty());
  table_->setEnabled(why.isEmpty());  // greyed, still readable
  verdict_->setStyleSheet(!why.isEmpty() ? QStringLiteral("QLabel { color: gray; }")
                          : verdictColour_.isEmpty()
                              ? QString()
                              : QStringLiteral("QLabel { color: %1; font-weight: bold; }").arg(verdictColour_));
}

QString CompareDock::staleText() const {
  if (shownRevisions_.isEmpty() || !document_ || revA_->count() == 0) return {};
  const QString revisions = pickedRevisions(), settings = pickedSettings();
  if (revisions != shownRevisions_)
    return tr("Out of date: computed for %1; now %2 — Compare again.").arg(shownRevisions_, revisions);
  if (settings != shownSettings_)
    return tr("Out of date: computed for %1 with %2; now %3 — Compare again.")
        .arg(shownRevisions_, shownSettings_, settings);
  return {};
}

void CompareDock::setVerdict(const QString& text, const QString& colour) {
  verdict_->setText(text);
  verdictColour_ = colour;
  markStale();
}

QString CompareDock::verdictText() const { return verdict_->text(); }

void CompareDock::askForInputs(std::function<void()> then) {
  if (document_) askInputs(document_, inputs_, this, std::move(then));
}

void CompareDock::updateNumericsButtons() {
  const bool idle = !isRunning() && !numericsWatcher_.isRunning();
  const bool failingPrecision = idle && lastRequest_ && lastRequest_->a == lastRequest_->b && summary_.ok &&
                                !summary_.equal && summary_.localErrors;
  const QString dtypeB = lastRequest_ ? lastRequest_->dtypeB : QString();
  reduceButton_->setEnabled(failingPrecision);
  float32Button_->setEnabled(failingPrecision &&
                             (dtypeB == QLatin1String("float16") || dtypeB == QLatin1String("bfloat16")));
  saveRepro_->setEnabled(idle && reduce_.ok);
}

void CompareDock::runNumericsJob(const std::function<void()>& job, const std::function<void()>& onDone) {
  run_->setEnabled(false);
  reduceButton_->setEnabled(false);
  float32Button_->setEnabled(false);
  saveRepro_->setEnabled(false);
  const int generation = generation_;
  auto* watcher = &numericsWatcher_;
  disconnect(watcher, nullptr, this, nullptr);
  connect(watcher, &QFutureWatcher<void>::finished, this, [this, generation, onDone] {
    run_->setEnabled(document_ != nullptr);
    if (generation != generation_) {  // another model was opened meanwhile
      updateNumericsButtons();
      return;
    }
    onDone();  // the worker's result, taken over on this thread
    updateNumericsButtons();
    if (reduce_.ok || !reduce_.error.isEmpty()) {
      status_->setText(
          reduce_.ok
              ? tr("%n node(s) still fail on A's values at their boundary (%1 runs); they are outlined on the canvas. "
                   "Fails at %2 (%3).",
                   nullptr, int(reduce_.nodes.size()))
                    .arg(reduce_.runs)
                    .arg(reduce_.failingOp, reduce_.failingPath)
              : tr("Reduce: %1").arg(reduce_.error));
      Q_EMIT reduceFinished();
    }
    if (float32_.ok || !float32_.error.isEmpty()) {
      if (!float32_.ok) status_->setText(tr("Keep in float32: %1").arg(float32_.error));
      else if (float32_.passesAlready) status_->setText(tr("B passes as it is: nothing needs float32."));
      else {
        status_->setText(tr("Keeping %1 in float32 makes B pass (max abs %2, was %3; %4 runs).")
                             .arg(float32_.labels.join(QStringLiteral(", ")))
                             .arg(float32_.afterMaxAbs, 0, 'g', 3)
                             .arg(std::isfinite(float32_.beforeMaxAbs) ? QString::number(float32_.beforeMaxAbs, 'g', 3)
                                                                       : tr("an overflow"))
                             .arg(float32_.runs));
        Q_EMIT float32Found();
      }
    }
  });
  watcher->setFuture(QtConcurrent::run(job));
}

void CompareDock::reduce() {
  if (!lastRequest_ || !document_ || numericsWatcher_.isRunning() || isRunning()) return;
  reduce_ = {};
  float32_ = {};
  status_->setText(tr("Reducing…"));
  const auto request = *lastRequest_;
  const auto ids = document_->ids();  // a copy: the subgraph's new nodes never enter the document
  auto out = std::make_shared<core::jobs::ReduceSummary>();
  runNumericsJob([out, request, ids] { *out = core::jobs::runReduce(request, ids); }, [this, out] { reduce_ = *out; });
}

void CompareDock::findFloat32Nodes() {
  if (!lastRequest_ || !document_ || numericsWatcher_.isRunning() || isRunning()) return;
  reduce_ = {};
  float32_ = {};
  status_->setText(tr("Looking for nodes to keep in float32…"));
  const auto request = *lastRequest_;
  const auto ids = document_->ids();
  auto out = std::make_shared<core::jobs::Float32Summary>();
  runNumericsJob([out, request, ids] { *out = core::jobs::runFloat32Search(request, ids); },
                 [this, out] { float32_ = *out; });
}

QString CompareDock::saveReducedAs(const QString& path) {
  // The subgraph and its boundary values are the reduce job's own (shared, immutable): the save
  // (a .pt2 with its weights) runs off the GUI thread.
  return runOffGuiThread([summary = reduce_, path] { return core::jobs::saveReduced(summary, path); });
}

void CompareDock::setPrecisionB(const QString& dtype) {
  const int i = dtypeB_->findData(dtype);
  if (i >= 0) dtypeB_->setCurrentIndex(i);
}

void CompareDock::precisionChanged() {
  // Tolerance fields follow the lower precision (torch.testing's defaults) until edited by hand.
  const auto next = core::run::defaultTolerance(dtypeA_->currentData().toString(), dtypeB_->currentData().toString());
  if (atol() == shownDefault_.first && rtol() == shownDefault_.second) {
    atol_->setText(QString::number(next.first, 'g', 3));
    rtol_->setText(QString::number(next.second, 'g', 3));
  }
  shownDefault_ = next;
  autocast_->setEnabled(!dtypeB_->currentData().toString().isEmpty());
  castsAsWritten_->setEnabled(!dtypeB_->currentData().toString().isEmpty() ||
                              !dtypeA_->currentData().toString().isEmpty());
}

void CompareDock::setErrorMetric(ErrorMetric metric) {
  const int i = metric_->findData(int(metric));
  if (i >= 0) metric_->setCurrentIndex(i);
}

QHash<core::model::NodeId, double> CompareDock::errorHeat(QString* title, QString* low, QString* high) const {
  QHash<core::model::NodeId, double> heat;
  const auto metric = ErrorMetric(metric_->currentData().toInt());
  if (metric == ErrorMetric::Off || !summary_.ok) return heat;
  // SQNR is better when higher: shown as dB below a ceiling, so that red stays the worst.
  constexpr double kSqnrCeiling = 80;
  double worst = 0;
  for (const auto& r : summary_.nodes) {
    if (r.node == core::model::kNoNode) continue;
    double v = 0;
    switch (metric) {
      case ErrorMetric::MaxAbs: v = r.maxAbs; break;
      case ErrorMetric::MaxRel: v = r.maxRel; break;
      case ErrorMetric::Cosine: v = 1 - r.cosine; break;
      case ErrorMetric::Sqnr: v = kSqnrCeiling - std::min(kSqnrCeiling, r.sqnrDb); break;
      case ErrorMetric::Local:
        if (!r.hasLocal) continue;
        v = r.localScaled;
        break;
      case ErrorMetric::Off: break;
    }
    heat.insert(r.node, v);
    if (std::isfinite(v)) worst = std::max(worst, v);
  }
  // An overflow (NaN, infinity) is the worst there is: drawn above every finite error.
  bool overflow = false;
  const double top = worst > 0 ? worst * 1.5 : 1;
  for (auto it = heat.begin(); it != heat.end(); ++it)
    if (!std::isfinite(*it)) {
      *it = top;
      overflow = true;
    }
  const auto format = [](double v) { return QString::number(v, 'g', 3); };
  QString t, l = QStringLiteral("0"), h = overflow ? tr("%1, then overflow").arg(format(worst)) : format(worst);
  switch (metric) {
    case ErrorMetric::MaxAbs: t = tr("Max abs error against A"); break;
    case ErrorMetric::MaxRel: t = tr("Max relative error against A"); break;
    case ErrorMetric::Cosine: t = tr("1 − cosine similarity with A"); break;
    case ErrorMetric::Sqnr:
      t = tr("SQNR against A (red: lowest)");
      l = QStringLiteral("≥ %1 dB").arg(kSqnrCeiling);
      h = overflow ? tr("%1 dB, then overflow").arg(format(kSqnrCeiling - worst))
                   : QStringLiteral("%1 dB").arg(format(kSqnrCeiling - worst));
      break;
    case ErrorMetric::Local: t = tr("Local error: the node's own, relative to its scale"); break;
    case ErrorMetric::Off: break;
  }
  if (title) *title = t;
  if (low) *low = l;
  if (high) *high = h;
  return heat;
}

}  // namespace graft::ui
