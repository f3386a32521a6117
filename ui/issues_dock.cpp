#include "ui/issues_dock.h"

#include "core/model/plural.h"
#include <QtCore/QFileInfo>

#include <algorithm>
#include <QtWidgets/QApplication>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QHeaderView>
#include <QtWidgets/QLabel>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QStyle>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

using core::model::Diagnostic;
using core::model::Severity;

namespace {

constexpr int kNodeRole = Qt::UserRole;
constexpr int kSerialRole = Qt::UserRole + 1;

QIcon severityIcon(Severity severity) {
  const auto pixmap = severity == Severity::Error     ? QStyle::SP_MessageBoxCritical
                      : severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                      : QStyle::SP_MessageBoxInformation;
  return QApplication::style()->standardIcon(pixmap);
}

}  // namespace

IssuesDock::IssuesDock(QWidget* parent) : QDockWidget(tr("Issues"), parent) {
  setObjectName(QStringLiteral("issuesDock"));
  auto* body = new QWidget(this);
  auto* column = new QVBoxLayout(body);
  column->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout;
  summary_ = new QLabel(body);
  auto* clearButton = new QPushButton(tr("Clear"), body);
  clearButton->setObjectName(QStringLiteral("issuesClear"));
  bar->addWidget(summary_, 1);
  bar->addWidget(clearButton);
  column->addLayout(bar);
  table_ = new QTableWidget(0, kColumns, body);
  table_->setObjectName(QStringLiteral("issuesTable"));
  table_->setHorizontalHeaderLabels({tr("Severity"), tr("Job"), tr("Message"), tr("Hint"), tr("Node"), tr("Where")});
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setWordWrap(false);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(false);
  table_->horizontalHeader()->setSectionResizeMode(kMessage, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(kSeverity, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kJob, QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setSectionResizeMode(kNode, QHeaderView::ResizeToContents);
  table_->setColumnWidth(kHint, 240);
  table_->setColumnWidth(kWhere, 160);
  // Small minimum: the dock shares the bottom area and must not grow a 1366x768 window.
  table_->setMinimumSize(120, 60);
  column->addWidget(table_, 1);
  setWidget(body);
  connect(clearButton, &QPushButton::clicked, this, &IssuesDock::clear);
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) { activateRow(row); });
  connect(table_, &QTableWidget::cellActivated, this, [this](int row, int) { activateRow(row); });
  updateTitle();
}

void IssuesDock::add(const core::model::Diagnostics& diagnostics) {
  // A new error comes to the front of the tab group when the dock is shown (warnings, such as a
  // differing comparison, leave the dock that reported them in front).
  const bool error = std::any_of(diagnostics.begin(), diagnostics.end(),
                                 [](const Diagnostic& d) { return d.severity == core::model::Severity::Error; });
  if (error && isVisible()) raise();
  for (const Diagnostic& d : diagnostics) {
    diagnostics_.push_back(d);
    const int row = table_->rowCount();
    table_->insertRow(row);
    auto* severity = new QTableWidgetItem(severityIcon(d.severity), core::model::severityName(d.severity));
    severity->setData(kNodeRole, QVariant::fromValue<qulonglong>(d.node));
    severity->setData(kSerialRole, serial_);
    // One line per cell (hints carry code on lines of their own); the whole text is the tooltip.
    const auto oneLine = [](const QString& s) {
      return QString(s).replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified();
    };
    const QString where = d.location();
    const QString shortWhere = where.isEmpty() ? QString() : QFileInfo(d.file).fileName() + where.mid(d.file.size());
    const QStringList cells{d.job, oneLine(d.message), oneLine(d.hint),
                            d.node == core::model::kNoNode ? QString() : QString::number(d.node), shortWhere};
    table_->setItem(row, kSeverity, severity);
    for (int c = kJob; c < kColumns; ++c) {
      auto* item = new QTableWidgetItem(cells[c - kJob]);
      QString tip = d.message;
      if (!d.hint.isEmpty()) tip += QStringLiteral("\n\n") + d.hint;
      if (!d.details.isEmpty()) tip += QStringLiteral("\n\n") + d.details;
      if (!where.isEmpty()) tip += QStringLiteral("\n\n") + where;
      item->setToolTip(tip);
      table_->setItem(row, c, item);
    }
  }
  if (!diagnostics.empty()) table_->scrollToBottom();
  updateTitle();
}

void IssuesDock::clear() {
  diagnostics_.clear();
  table_->setRowCount(0);
  updateTitle();
}

void IssuesDock::activateRow(int row) {
  const auto* item = table_->item(row, kSeverity);
  if (!item) return;
  const auto node = core::model::NodeId(item->data(kNodeRole).toULongLong());
  if (node == core::model::kNoNode || item->data(kSerialRole).toInt() != serial_) return;
  Q_EMIT nodeActivated(node);
}

void IssuesDock::updateTitle() {
  int errors = 0, warnings = 0;
  for (const auto& d : diagnostics_) {
    errors += d.severity == Severity::Error ? 1 : 0;
    warnings += d.severity == Severity::Warning ? 1 : 0;
  }
  const int total = int(diagnostics_.size());
  setWindowTitle(total ? tr("Issues (%1)").arg(total) : tr("Issues"));
  summary_->setText(total ? QStringLiteral("%1, %2, %3 other")
                                .arg(core::model::counted(errors, tr("error"), tr("errors")),
                                     core::model::counted(warnings, tr("warning"), tr("warnings")))
                                .arg(total - errors - warnings)
                          : tr("No issues."));
  Q_EMIT countChanged(total);
}

}  // namespace graft::ui
