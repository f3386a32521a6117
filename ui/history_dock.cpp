#include "ui/history_dock.h"

#include "core/edit/graph_diff.h"
#include "core/model/document.h"
#include "core/jobs/ledger.h"
#include "core/model/weight_bytes.h"
#include "core/remote/remote_device.h"
#include "core/remote/remote_ledger.h"
#include "core/remote/remote_model.h"
#include "ui/document/off_thread.h"
#include "ui/document/saved_for_host.h"

#include <QtCharts/QChartView>
#include <QtWidgets/QGraphicsLayout>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>
#include <QtConcurrent/QtConcurrent>
#include <QtWidgets/QApplication>
#include <QtWidgets/QLabel>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QVBoxLayout>

#include <cmath>
#include <utility>

namespace graft::ui {

HistoryDock::HistoryDock(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("historyList"));
  diffSummary_ = new QLabel(this);
  diffSummary_->setObjectName(QStringLiteral("historyDiff"));
  diffSummary_->setWordWrap(true);
  diff_ = new QListWidget(this);
  diff_->setObjectName(QStringLiteral("historyDiffLines"));
  diff_->setMaximumHeight(120);
  list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  diffButton_ = new QPushButton(tr("Diff Selected"), this);
  diffButton_->setObjectName(QStringLiteral("historyDiffButton"));
  diffButton_->setToolTip(tr("Ctrl+click a second revision, then show the two side by side"));
  diffButton_->setEnabled(false);

  // Error against the original (log scale) and median forward time, per revision.
  auto* chart = new QChart();
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(2, 2, 2, 2));
  errorSeries_ = new QLineSeries();
  errorSeries_->setName(tr("max abs error (left)"));
  errorSeries_->setColor(QColor(0x20, 0x6a, 0xc0));
  timeSeries_ = new QLineSeries();
  timeSeries_->setName(tr("median forward ms (right)"));
  timeSeries_->setColor(QColor(0xd0, 0x60, 0x10));
  chart->addSeries(errorSeries_);
  chart->addSeries(timeSeries_);
  // Small labels: the dock is narrow, and elided axis labels ("…") say nothing.
  QFont small = font();
  small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.75));
  chart->legend()->setFont(small);
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  chart->setBackgroundRoundness(0);
  // Every axis carries its values and its unit: short labels ("1e-06", "0.42") in a small font
  // fit a narrow dock whole.
  auto* x = new QValueAxis();
  x->setObjectName(QStringLiteral("historyRevisionAxis"));
  x->setLabelFormat(QStringLiteral("%d"));
  x->setLabelsFont(small);
  x->setTitleText(tr("revision"));
  x->setTitleFont(small);
  auto* error = new QLogValueAxis();
  error->setObjectName(QStringLiteral("historyErrorAxis"));
  error->setBase(10);
  error->setLabelFormat(QStringLiteral("%.0e"));
  error->setLabelsFont(small);
  error->setMinorTickCount(0);
  error->setTitleText(tr("max abs error"));
  error->setTitleFont(small);
  error->setLabelsColor(QColor(0x20, 0x6a, 0xc0));
  auto* time = new QValueAxis();
  time->setObjectName(QStringLiteral("historyTimeAxis"));
  time->setLabelFormat(QStringLiteral("%.2f"));
  time->setLabelsFont(small);
  time->setTickCount(3);
  time->setTitleText(tr("median ms"));
  time->setTitleFont(small);
  time->setLabelsColor(QColor(0xd0, 0x60, 0x10));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(error, Qt::AlignLeft);
  chart->addAxis(time, Qt::AlignRight);
  errorSeries_->attachAxis(x);
  errorSeries_->attachAxis(error);
  timeSeries_->attachAxis(x);
  timeSeries_->attachAxis(time);
  chart_ = new QChartView(chart, this);
  chart_->setObjectName(QStringLiteral("historyLedgerChart"));
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumHeight(170);
  chart_->setMaximumHeight(220);
  chart_->setVisible(false);

  layout->addWidget(list_, 1);
  layout->addWidget(chart_);
  layout->addWidget(diffButton_);
  layout->addWidget(diffSummary_);
  layout->addWidget(diff_);
  // A plain click goes to the revision; Ctrl/Shift+click only selects (for Diff Selected).
  connect(list_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    if (document_ && !(QApplication::keyboardModifiers() & (Qt::ControlModifier | Qt::ShiftModifier)))
      Q_EMIT revisionChosen(item->data(Qt::UserRole).toInt());
  });
  connect(list_, &QListWidget::itemSelectionChanged, this,
          [this] { diffButton_->setEnabled(selectedPair().size() == 2); });
  connect(diffButton_, &QPushButton::clicked, this, [this] {
    const auto pair = selectedPair();
    if (pair.size() == 2) Q_EMIT diffRequested(pair[0], pair[1]);
  });
  connect(&watcher_, &QFutureWatcher<core::jobs::LedgerEntry>::finished, this, [this] {
    if (runGeneration_ == generation_ && checking_ >= 0) {
      ledger_[checking_] = std::make_shared<const core::jobs::LedgerEntry>(watcher_.result());
      // The original timed alone at open ran cold (the first forwards of the process); once a
      // revision is timed it is timed again, so both are measured the same way.
      if (checking_ == 0) baselineAlone_ = ledger_.size() == 1;
      else if (std::exchange(baselineAlone_, false)) ledger_.erase(0);
    }
    checking_ = -1;
    // Only the rows and the chart change: the difference list below stays as it is.
    if (document_)
      for (int row = 0; row < list_->count(); ++row) showRow(list_->item(row));
    updateChart();
    checkNext();
    Q_EMIT ledgerUpdated();
  });
}

HistoryDock::~HistoryDock() {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

QVector<int> HistoryDock::selectedPair() const {
  QVector<int> pair;
  for (auto* item : list_->selectedItems()) pair << item->data(Qt::UserRole).toInt();
  if (pair.size() != 2) return {};
  std::sort(pair.begin(), pair.end());
  return pair;
}

void HistoryDock::documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event) {
  if (event.replacesDocument()) setDocument(document);
  else refresh();
}

void HistoryDock::setDocument(const core::model::Document* document) {
  document_ = document;
  originalWeightBytes_.reset();
  recheck();
  refresh();
}

bool HistoryDock::baselineAtOpen() {
  if (!originalWeightBytes_) originalWeightBytes_ = core::model::weightBytes(*document_->original());
  return *originalWeightBytes_ <= baselineAtOpenLimit_;
}

void HistoryDock::recheck() {
  ++generation_;
  if (cancel_) cancel_->store(true);
  ledger_.clear();
  baselineAlone_ = false;
  waitingForInputs_ = false;  // asked again by checkNext
  if (!watcher_.isRunning()) checking_ = -1;
  refresh();
}

const core::jobs::LedgerEntry* HistoryDock::ledgerEntry(int index) const {
  auto it = ledger_.find(index);
  return it == ledger_.end() ? nullptr : it->second.get();
}

QString HistoryDock::ledgerText(int index) const {
  const auto* e = ledgerEntry(index);
  const auto cost = [e] {
    const QString ms = tr("%1 ms").arg(e->medianMs, 0, 'f', 1);
    if (e->peakBytes < 0) return ms;  // a host's CPU: its peak is not measured
    return tr("%1 · %2 MiB peak").arg(ms).arg(e->peakBytes / 1048576.0, 0, 'f', 1);
  };
  if (!e && index != checking_ && waitingForInputs_) return tr("waiting for inputs (give them in the Compare dock)");
  if (index == 0) return e && e->ok ? cost() : QString();  // the baseline
  if (!e) return index == checking_ ? tr("checking…") : QString();
  if (!e->ok) return tr("check failed: %1").arg(e->error.section(QLatin1Char('\n'), 0, 0));
  return tr("%1 max abs %2 · %3")
      .arg(e->pass ? QStringLiteral("✓") : QStringLiteral("✗"))
      .arg(e->maxAbs, 0, 'g', 2)
      .arg(cost());
}

void HistoryDock::checkNext() {
  if (!document_ || watcher_.isRunning() || savingForHost_ || !checkSetup_) return;
  int next = -1;
  for (int i = 1; i < document_->count() && next < 0; ++i)
    if (!ledger_.count(i)) next = i;
  // The original's own time is the baseline of the chart. Alone, it is timed at open only when
  // its weights are small: a run reads every weight, and opening must not (a large model's
  // baseline waits for a revision to chart against).
  if (next < 0 && !ledger_.count(0) && (document_->count() > 1 || baselineAtOpen())) next = 0;
  if (next < 0) return;
  const CheckSetup setup = checkSetup_();
  // The ledger waits for inputs (the Compare dock asks for them), and says so on its rows.
  if (const bool waiting = !setup.inputs; waiting != waitingForInputs_) {
    waitingForInputs_ = waiting;
    for (int row = 0; row < list_->count(); ++row) showRow(list_->item(row));
  }
  if (!setup.inputs) return;
  core::jobs::LedgerOptions options;
  options.atol = setup.atol;
  options.rtol = setup.rtol;
  options.elementwise = setup.elementwise;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  options.cancel = cancel_.get();
  // Snapshots only: the worker never touches the document.
  const auto original = document_->original();
  const auto revision = document_->revision(next);
  const auto inputs = setup.inputs;
  auto cancel = cancel_;
  checking_ = next;
  runGeneration_ = generation_;
  if (core::remote::isRemoteDevice(setup.device)) {
    // On the Compare dock's remote B: the revision is saved here (the job holds no document) and
    // run on the host.
    QString error;
    const auto device = core::remote::parseRemoteDevice(setup.device, &error);
    savingForHost_ = true;
    const auto model = device ? savedForHost(*document_, revision, &error) : nullptr;
    savingForHost_ = false;
    if (generation_ != runGeneration_ || !document_) {  // another model was opened meanwhile
      checking_ = -1;
      return;
    }
    watcher_.setFuture(QtConcurrent::run([original, revision, inputs, options, cancel, device, model, error] {
      if (!model) {
        core::jobs::LedgerEntry failed;
        failed.error = error;
        return failed;
      }
      return core::remote::checkRevisionRemote(original, *model, revision, *inputs, options, *device);
    }));
    return;
  }
  watcher_.setFuture(QtConcurrent::run([original, revision, inputs, options, cancel] {
    return core::jobs::checkRevision(original, revision, *inputs, options);
  }));
}

void HistoryDock::updateChart() {
  errorSeries_->clear();
  timeSeries_->clear();
  double maxMs = 0, minErr = 1e-8, maxErr = 1e-6;
  for (const auto& [index, entry] : ledger_) {
    if (!entry->ok) continue;
    // A log axis cannot show 0: an exact match sits on the floor.
    const double err = std::isfinite(entry->maxAbs) ? std::max(entry->maxAbs, 1e-12) : 1e12;
    errorSeries_->append(index, err);
    minErr = std::min(minErr, err);
    maxErr = std::max(maxErr, err);
    if (index == 0 && baselineAlone_) continue;  // a cold time, not drawn against warm ones
    timeSeries_->append(index, entry->medianMs);
    maxMs = std::max(maxMs, entry->medianMs);
  }
  auto* chart = chart_->chart();
  const auto axes = chart->axes();
  for (auto* axis : axes) {
    if (auto* v = qobject_cast<QValueAxis*>(axis)) {
      if (chart->axes(Qt::Horizontal).contains(axis)) {
        v->setRange(0, std::max(1, document_ ? document_->count() - 1 : 1));
        v->setTickCount(std::min(6, std::max(2, document_ ? document_->count() : 2)));
      } else {
        v->setRange(0, maxMs * 1.2 + 0.1);
      }
    } else if (auto* l = qobject_cast<QLogValueAxis*>(axis)) {
      // At most about four labels however many decades the errors span: a label per decade in a
      // short chart would overlap and be elided to "…".
      const double low = minErr / 10, high = maxErr * 10;
      const int decades = int(std::ceil(std::log10(high / low)));
      l->setBase(std::pow(10.0, std::max(1, (decades + 2) / 3)));
      l->setRange(low, high);
    }
  }
  chart_->setVisible(document_ && document_->count() > 1 && errorSeries_->count() > 0);
}

void HistoryDock::showRow(QListWidgetItem* item) const {
  const int i = item->data(Qt::UserRole).toInt();
  int depth = 0;
  for (int p = document_->parentOf(i); p >= 0; p = document_->parentOf(p)) ++depth;
  const QString check = ledgerText(i);
  item->setText(QStringLiteral("%1%2  %3%4")
                    .arg(QString(depth * 2, QLatin1Char(' ')))
                    .arg(i)
                    .arg(document_->revision(i)->name(), check.isEmpty() ? QString() : QStringLiteral("   ") + check));
  if (const auto* e = ledgerEntry(i); e && e->ok && !e->pass) item->setForeground(QColor(0xc6, 0x28, 0x28));
}

void HistoryDock::refresh() {
  list_->clear();
  diff_->clear();
  diffSummary_->clear();
  if (!document_) {
    updateChart();
    return;
  }
  for (int i = 0; i < document_->count(); ++i) {
    auto* item = new QListWidgetItem(list_);
    item->setData(Qt::UserRole, i);
    showRow(item);
    if (i == document_->currentIndex()) {
      QFont f = item->font();
      f.setBold(true);
      item->setFont(f);
      list_->setCurrentItem(item);
    }
  }
  updateChart();
  checkNext();
  const int cur = document_->currentIndex();
  const int parent = document_->parentOf(cur);
  diff_->setVisible(parent >= 0);
  if (parent < 0) {
    diffSummary_->setText(tr("The model as loaded."));
    return;
  }
  const auto d = core::edit::diffGraphs(*document_->revision(parent), *document_->current(),
                                        core::edit::DiffMatching::ByProvenance);
  diffSummary_->setText(tr("vs revision %1: %2").arg(parent).arg(d.summaryText()));
  diff_->addItems(d.lines());
}

}  // namespace graft::ui
