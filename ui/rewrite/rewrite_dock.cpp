#include "ui/rewrite/rewrite_dock.h"

#include "core/model/document.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "ui/rewrite/rule_editor.h"

#include <QtCore/QFile>
#include <QtWidgets/QApplication>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

namespace {
constexpr int kIdRole = Qt::UserRole;
constexpr int kTextRole = Qt::UserRole + 1;
}  // namespace

RewriteDock::RewriteDock(QWidget* parent)
    : QWidget(parent), library_(std::make_unique<core::rewrite::RuleLibrary>()) {
  setObjectName(QStringLiteral("rewriteDock"));
  search_ = new QLineEdit(this);
  search_->setObjectName(QStringLiteral("ruleSearch"));
  search_->setPlaceholderText(tr("Search rules"));
  search_->setClearButtonEnabled(true);
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("ruleList"));
  matches_ = new QLabel(this);
  matches_->setObjectName(QStringLiteral("ruleMatches"));
  matches_->setWordWrap(true);
  auto* apply = new QPushButton(tr("Apply"), this);
  apply->setObjectName(QStringLiteral("applyRule"));
  auto* applyAllButton = new QPushButton(tr("Apply all"), this);
  applyAllButton->setObjectName(QStringLiteral("applyAll"));
  editor_ = new RuleEditor(this);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(apply);
  buttons->addWidget(applyAllButton);
  auto* top = new QWidget(this);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addWidget(search_);
  topLayout->addWidget(list_, 1);
  topLayout->addWidget(matches_);
  topLayout->addLayout(buttons);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top);
  split->addWidget(editor_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);

  connect(search_, &QLineEdit::textChanged, this, &RewriteDock::filter);
  connect(list_, &QListWidget::currentItemChanged, this, &RewriteDock::refreshSelection);
  connect(apply, &QPushButton::clicked, this, [this] {
    if (!selectedRule().isEmpty()) matches_->setText(applyRules({selectedRule()}));
  });
  connect(applyAllButton, &QPushButton::clicked, this, [this] { matches_->setText(applyAll()); });
  connect(editor_, &RuleEditor::saved, this, [this] { reloadLibrary(); });
  reloadLibrary();
}

void RewriteDock::reloadLibrary() {
  const QString keep = selectedRule();
  // Rules are small files: re-reading picks up a rule just saved from the editor.
  *library_ = core::rewrite::RuleLibrary::load();
  list_->clear();
  for (const auto& r : (*library_).rules()) {
    auto* item = new QListWidgetItem(r.title, list_);
    item->setData(kIdRole, r.id);
    item->setData(kTextRole, QStringList{r.id, r.title, r.description}.join(QLatin1Char(' ')));
    item->setToolTip(QStringLiteral("%1 (%2)\n%3").arg(r.id, r.source, r.description));
  }
  filter(search_->text());
  if (!keep.isEmpty()) selectRule(keep);
}

void RewriteDock::setDocument(core::model::Document* document) {
  document_ = document;
  if (document_)
    connect(document_, &core::model::Document::currentChanged, this, [this] {
      editor_->setRevision(document_->current());
      refreshSelection();
    });
  editor_->setRevision(document_ ? document_->current() : nullptr);
  refreshSelection();
}

QStringList RewriteDock::ruleIds() const {
  QStringList ids;
  for (const auto& r : (*library_).rules()) ids << r.id;
  return ids;
}

int RewriteDock::matchCount(const QString& id) const {
  const auto* rule = (*library_).find(id);
  if (!document_ || !rule) return -1;
  return core::rewrite::countMatches(*document_->current(), *rule).matches;
}

void RewriteDock::selectRule(const QString& id) {
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->data(kIdRole).toString() == id) list_->setCurrentRow(i);
}

QString RewriteDock::selectedRule() const {
  auto* item = list_->currentItem();
  return item ? item->data(kIdRole).toString() : QString();
}

void RewriteDock::refreshSelection() {
  const QString id = selectedRule();
  const auto* rule = (*library_).find(id);
  if (!rule) {
    matches_->clear();
    return;
  }
  if (!rule->isBuiltinPass()) {
    QFile f(rule->source == QLatin1String("builtin") ? QStringLiteral(":/rules/%1.rule").arg(id) : rule->source);
    if (f.open(QIODevice::ReadOnly)) editor_->setRuleText(QString::fromUtf8(f.readAll()));
  }
  const int n = matchCount(id);
  matches_->setText(n < 0 ? rule->description : tr("%1: %n match(es) in the current revision", nullptr, n).arg(id));
  Q_EMIT ruleSelected(id, n);
}

void RewriteDock::filter(const QString& text) {
  for (int i = 0; i < list_->count(); ++i) {
    auto* item = list_->item(i);
    item->setHidden(!text.isEmpty() && !item->data(kTextRole).toString().contains(text, Qt::CaseInsensitive));
  }
}

RewriteDock::~RewriteDock() = default;

QString RewriteDock::applyRules(const QStringList& ids) {
  if (!document_) return tr("Open a model first.");
  QVector<core::rewrite::Step> steps;
  for (const auto& id : ids)
    if (const auto* r = (*library_).find(id)) steps.push_back(core::rewrite::Step::ofRule(*r));
  if (steps.isEmpty()) return tr("No rule to apply.");
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const auto result = core::rewrite::applySteps(*document_->current(), steps, document_->ids());
  QApplication::restoreOverrideCursor();
  if (!result.ok()) return result.error;
  int total = 0;
  for (const auto& r : result.reports) total += r.matches;
  const int index = document_->commit(result.revision);
  Q_EMIT applied(index);
  return tr("%n rewrite(s); ops %1 → %2", nullptr, total).arg(result.opsBefore).arg(result.opsAfter);
}

}  // namespace graft::ui
