#include "ui/history_dock.h"

#include "core/edit/graph_diff.h"
#include "core/model/document.h"

#include <QtWidgets/QLabel>
#include <QtWidgets/QApplication>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QVBoxLayout>

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
  layout->addWidget(list_, 1);
  layout->addWidget(diffButton_);
  layout->addWidget(diffSummary_);
  layout->addWidget(diff_);
  // A plain click goes to the revision; Ctrl/Shift+click only selects (for Diff Selected).
  connect(list_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    if (document_ && !(QApplication::keyboardModifiers() & (Qt::ControlModifier | Qt::ShiftModifier)))
      document_->setCurrent(item->data(Qt::UserRole).toInt());
  });
  connect(list_, &QListWidget::itemSelectionChanged, this, [this] { diffButton_->setEnabled(selectedPair().size() == 2); });
  connect(diffButton_, &QPushButton::clicked, this, [this] {
    const auto pair = selectedPair();
    if (pair.size() == 2) Q_EMIT diffRequested(pair[0], pair[1]);
  });
}

QVector<int> HistoryDock::selectedPair() const {
  QVector<int> pair;
  for (auto* item : list_->selectedItems()) pair << item->data(Qt::UserRole).toInt();
  if (pair.size() != 2) return {};
  std::sort(pair.begin(), pair.end());
  return pair;
}

void HistoryDock::setDocument(core::model::Document* document) {
  document_ = document;
  if (document_) {
    connect(document_, &core::model::Document::revisionAdded, this, &HistoryDock::refresh);
    connect(document_, &core::model::Document::currentChanged, this, &HistoryDock::refresh);
  }
  refresh();
}

void HistoryDock::refresh() {
  list_->clear();
  diff_->clear();
  diffSummary_->clear();
  if (!document_) return;
  for (int i = 0; i < document_->count(); ++i) {
    int depth = 0;
    for (int p = document_->parentOf(i); p >= 0; p = document_->parentOf(p)) ++depth;
    auto* item = new QListWidgetItem(QStringLiteral("%1%2  %3").arg(QString(depth * 2, QLatin1Char(' '))).arg(i).arg(document_->revision(i)->name()), list_);
    item->setData(Qt::UserRole, i);
    if (i == document_->currentIndex()) {
      QFont f = item->font();
      f.setBold(true);
      item->setFont(f);
      list_->setCurrentItem(item);
    }
  }
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
