#include "ui/compare_dock.h"

#include "core/model/document.h"
#include "ui/input_dialog.h"
#include "ui/tensor_inspector.h"

#include <QtConcurrent/QtConcurrent>
#include <QtGui/QDoubleValidator>
#include <QtWidgets/QCheckBox>
#include <QtWidgets/QComboBox>
#include <QtWidgets/QFormLayout>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QHeaderView>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

namespace {
enum Column { kWhat, kOp, kMaxAbs, kMaxRel, kMismatched, kCosine, kResult, kColumns };
}

CompareDock::CompareDock(QWidget* parent) : QWidget(parent) {
  auto* form = new QFormLayout();
  revA_ = new QComboBox(this);
  revB_ = new QComboBox(this);
  inputs_ = new QLineEdit(this);
  inputs_->setPlaceholderText(tr("default: the model's input shape; e.g. 1x3x224x224:float32; file.npy"));
  inputs_->setObjectName(QStringLiteral("compareInputs"));
  inputs_->setToolTip(tr("One spec per forward argument, separated by ';' or spaces: a shape (1x3x224x224:float32), "
                         "a tensor file, a number (3, 0.5), true/false, none, (…) tuples, […] lists"));
  device_ = new QComboBox(this);
  deviceB_ = new QComboBox(this);
  device_->addItems(core::run::availableDevices());
  deviceB_->addItems(core::run::availableDevices());
  atol_ = new QLineEdit(QStringLiteral("1e-5"), this);
  rtol_ = new QLineEdit(QStringLiteral("1e-4"), this);
  atol_->setValidator(new QDoubleValidator(0, 1e9, 12, atol_));
  rtol_->setValidator(new QDoubleValidator(0, 1e9, 12, rtol_));
  perNode_ = new QCheckBox(tr("compare every node"), this);
  perNode_->setChecked(true);
  form->addRow(tr("A"), revA_);
  form->addRow(tr("B"), revB_);
  form->addRow(tr("Inputs"), inputs_);
  auto* devices = new QHBoxLayout();
  devices->addWidget(device_);
  devices->addWidget(new QLabel(tr("B on"), this));
  devices->addWidget(deviceB_);
  form->addRow(tr("Device A"), devices);
  auto* tols = new QHBoxLayout();
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

  run_ = new QPushButton(tr("Compare"), this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  auto* buttons = new QHBoxLayout();
  buttons->addWidget(run_);
  buttons->addWidget(cancel_);
  buttons->addWidget(status_, 1);

  table_ = new QTableWidget(0, kColumns, this);
  table_->setHorizontalHeaderLabels({tr("Output / module"), tr("Op"), tr("max abs"), tr("max rel"), tr("mismatched"), tr("cosine"), tr("Result")});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  inspector_ = new TensorInspector(this);
  // Side by side: the table stays readable while a node's tensors are inspected.
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(table_);
  split->addWidget(inspector_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(split, 1);

  connect(run_, &QPushButton::clicked, this, &CompareDock::start);
  connect(cancel_, &QPushButton::clicked, this, &CompareDock::cancel);
  connect(&watcher_, &QFutureWatcher<core::run::CompareSummary>::finished, this, [this] {
    summary_ = watcher_.result();
    if (runGeneration_ != generation_) {
      // Another model was opened meanwhile: these results describe revisions no longer shown.
      summary_ = {};
      summary_.cancelled = true;
    }
    showSummary();
    run_->setEnabled(document_ != nullptr);
    cancel_->setEnabled(false);
    if (const auto diagnostics = summary_.diagnostics(); !diagnostics.empty()) Q_EMIT diagnosticsReported(diagnostics);
    Q_EMIT finished();
  });
  connect(overlay_, &QCheckBox::toggled, this, &CompareDock::overlayToggled);
  connect(table_, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
    const auto id = table_->item(row, kWhat)->data(Qt::UserRole).toULongLong();
    if (id == core::model::kNoNode) return;
    inspector_->show(summary_, id, table_->item(row, kWhat)->text() + QStringLiteral("  ") + table_->item(row, kOp)->text());
    Q_EMIT nodeActivated(id);
  });
  setDocument(nullptr);
}

CompareDock::~CompareDock() {
  cancel();
  watcher_.waitForFinished();
}

void CompareDock::setDocument(core::model::Document* document) {
  // No manual disconnect: the previous document may already be gone (Qt drops its connections).
  cancel();  // a running comparison belongs to the previous document: stop it, drop its result
  ++generation_;
  document_ = document;
  summary_ = {};
  inputs_->setText(document_ ? InputDialog::remembered(document_->sourcePath()) : QString());
  table_->setRowCount(0);
  status_->clear();  // the last verdict was about the previous model
  inspector_->clear();
  run_->setEnabled(document_ != nullptr && !isRunning());
  if (document_) {
    connect(document_, &core::model::Document::revisionAdded, this, &CompareDock::refreshRevisions);
    connect(document_, &core::model::Document::currentChanged, this, &CompareDock::refreshRevisions);
  }
  refreshRevisions();
}

bool CompareDock::overlayEnabled() const { return overlay_->isChecked(); }

void CompareDock::inspectNode(core::model::NodeId id) {
  for (const auto& r : summary_.nodes)
    if (r.node == id && id != core::model::kNoNode) {
      inspector_->show(summary_, id, r.label + QStringLiteral("  ") + r.op);
      return;
    }
}

void CompareDock::setInputSpec(const QString& spec) { inputs_->setText(spec); }
QString CompareDock::inputSpec() const { return inputs_->text(); }
double CompareDock::atol() const { return atol_->text().toDouble(); }
double CompareDock::rtol() const { return rtol_->text().toDouble(); }

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
  // Inputs are made here, on the GUI thread: the worker gets snapshots, never the document.
  const auto resolved = core::run::resolveInputs(*document_, inputs_->text(), 0);
  if (!resolved.inputs) {
    if (resolved.missingShape >= 0) askInputs(document_, inputs_, this, [this] { start(); });
    else {
      status_->setText(tr("Failed: %1").arg(resolved.error));
      Q_EMIT diagnosticsReported({core::model::Diagnostic::error(QStringLiteral("compare"), resolved.error)});
    }
    return;
  }
  req.inputs = resolved.inputs;
  req.atol = atol_->text().toDouble();
  req.rtol = rtol_->text().toDouble();
  req.deviceA = device_->currentText();
  req.deviceB = deviceB_->currentText();
  req.perNode = perNode_->isChecked();
  cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
  auto flag = cancelFlag_;
  runGeneration_ = generation_;
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  status_->setText(tr("Running…"));
  // The request holds shared revision and input handles, so the worker never touches the document.
  watcher_.setFuture(QtConcurrent::run([req, flag] { return core::run::runCompare(req, flag.get()); }));
}

void CompareDock::cancel() {
  if (cancelFlag_) cancelFlag_->store(true);
}

void CompareDock::addRow(const core::run::CompareRow& r) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  auto num = [](double v) { return std::isfinite(v) ? QString::number(v, 'g', 4) : QStringLiteral("—"); };
  const QStringList cells{r.label, r.op, num(r.maxAbs), num(r.maxRel),
                          QStringLiteral("%1 / %2").arg(r.mismatched).arg(r.numel), num(r.cosine),
                          r.pass ? tr("pass") : (r.note.isEmpty() ? tr("FAIL") : tr("FAIL: ") + r.note)};
  const QColor colour = r.pass ? QColor(200, 240, 200) : QColor(250, 200, 200);
  for (int c = 0; c < kColumns; ++c) {
    auto* item = new QTableWidgetItem(cells[c]);
    item->setBackground(colour);
    if (c == kWhat) item->setData(Qt::UserRole, QVariant::fromValue<qulonglong>(r.node));
    table_->setItem(row, c, item);
  }
}

void CompareDock::showSummary() {
  table_->setRowCount(0);
  inspector_->clear();
  if (!summary_.ok) {
    status_->setText(summary_.cancelled ? tr("Cancelled.") : tr("Failed: %1").arg(summary_.error));
    return;
  }
  // One verdict from the rows shown below it: never "equal" beside a divergence.
  QString text;
  if (summary_.intermediateDivergence)
    text = tr("Outputs equal, but an intermediate is beyond tolerance: %1 at %2 (max abs %3).")
               .arg(summary_.intermediateDivergence->op, summary_.intermediateDivergence->label)
               .arg(summary_.intermediateDivergence->maxAbs, 0, 'g', 4);
  else if (summary_.equal)
    text = tr("Equal within tolerance.");
  else if (summary_.firstDivergence)
    text = tr("Outputs differ. First divergence: %1 at %2 (max abs %3).")
               .arg(summary_.firstDivergence->op, summary_.firstDivergence->label)
               .arg(summary_.firstDivergence->maxAbs, 0, 'g', 4);
  else
    text = tr("Outputs differ.");
  if (!summary_.changes.isEmpty())
    text += QLatin1Char(' ') + (summary_.changes.size() == 1 ? tr("1 change compared where its values leave it.")
                                                             : tr("%1 changes compared where their values leave them.").arg(summary_.changes.size()));
  status_->setText(text);
  for (const auto& r : summary_.outputs) addRow(r);
  for (const auto& r : summary_.nodes) addRow(r);
}

}  // namespace graft::ui
