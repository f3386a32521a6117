#include "ui/rewrite/rewrite_dock.h"

#include "core/model/plural.h"
#include "core/model/document.h"
#include "core/rewrite/library.h"
#include "core/rewrite/pattern_draft.h"
#include "core/rewrite/python_rules.h"
#include "ui/document/off_thread.h"
#include "ui/rewrite/rule_editor.h"

#include <QtCore/QFile>
#include <QtGui/QGuiApplication>
#include <QtWidgets/QApplication>
#include <QtWidgets/QGridLayout>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QMessageBox>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QVBoxLayout>

#include <algorithm>
#include <utility>

namespace graft::ui {

namespace {
constexpr int kIdRole = Qt::UserRole;
constexpr int kTextRole = Qt::UserRole + 1;

QPushButton* button(const QString& text, const QString& name, const QString& tip, QWidget* parent) {
  auto* b = new QPushButton(text, parent);
  b->setObjectName(name);
  b->setToolTip(tip);
  return b;
}
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
  where_ = new QLabel(this);
  where_->setObjectName(QStringLiteral("matchWhere"));
  where_->setWordWrap(true);
  previous_ =
      button(QStringLiteral("◀"), QStringLiteral("previousMatch"), tr("Show the previous match on the canvas"), this);
  next_ = button(QStringLiteral("▶"), QStringLiteral("nextMatch"), tr("Show the next match on the canvas"), this);
  applyOne_ = button(tr("Apply this match"), QStringLiteral("applyMatch"),
                     tr("Rewrite only the match shown (one undo step)"), this);
  applyShown_ = button(tr("Apply to all matches"), QStringLiteral("applyRule"),
                       tr("Rewrite every match shown, with the rule shown in the editor (one undo step)"), this);
  auto* apply = applyShown_;
  auto* applyAllButton = button(tr("Apply every rule"), QStringLiteral("applyAll"),
                                tr("Run every rule in the library in order (one undo step)"), this);
  auto* draft = button(tr("New rule from selection"), QStringLiteral("ruleFromSelection"),
                       tr("Write the selected nodes (Ctrl+click to select several) as a pattern in the editor"), this);
  auto* draftPython =
      button(tr("… as Python"), QStringLiteral("pythonRuleFromSelection"),
             tr("Write the selected nodes as Python pattern and replacement functions (torch.ops.aten calls)"), this);
  editor_ = new RuleEditor(this);

  auto* stepping = new QHBoxLayout;
  stepping->addWidget(previous_);
  stepping->addWidget(next_);
  stepping->addWidget(where_, 1);
  // Two buttons a row, so the dock fits beside the Tour panel on a 1366-pixel screen.
  auto* buttons = new QGridLayout;
  buttons->addWidget(applyOne_, 0, 0);
  buttons->addWidget(apply, 0, 1);
  buttons->addWidget(draft, 1, 0);
  buttons->addWidget(draftPython, 1, 1);
  buttons->addWidget(applyAllButton, 2, 0, 1, 2);
  auto* top = new QWidget(this);
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addWidget(search_);
  topLayout->addWidget(list_, 1);
  topLayout->addWidget(matches_);
  topLayout->addLayout(stepping);
  topLayout->addLayout(buttons);
  // In a short dock the content scrolls rather than squeezing the list to two rows; the wrapped
  // status gets its three lines (a layout's minimum leaves out a label's height for its width).
  list_->setMinimumHeight(5 * list_->fontMetrics().height() + 10);
  matches_->setMinimumHeight(3 * matches_->fontMetrics().lineSpacing() + 4);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(top);
  split->addWidget(editor_);
  split->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(split);

  connect(search_, &QLineEdit::textChanged, this, &RewriteDock::filter);
  // Choosing a rule shows its first match; a new revision only refreshes the outlines.
  connect(list_, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* now, QListWidgetItem* before) {
    if (reloading_ || !mayReplaceEditedRule(now, before)) return;
    if (now) {
      editor_->discardEdits();
      editorIsCurrent_ = false;
      waiting_ = Waiting::None;
    }
    refreshSelection(true);
  });
  connect(previous_, &QPushButton::clicked, this, [this] {
    if (!sites_.isEmpty()) setCurrentMatch((current_ + sites_.size() - 1) % sites_.size());
  });
  connect(next_, &QPushButton::clicked, this, [this] {
    if (!sites_.isEmpty()) setCurrentMatch((current_ + 1) % sites_.size());
  });
  connect(applyOne_, &QPushButton::clicked, this, [this] { matches_->setText(applyCurrentMatch()); });
  connect(apply, &QPushButton::clicked, this, [this] { matches_->setText(applyShownRule()); });
  connect(applyAllButton, &QPushButton::clicked, this, [this] { matches_->setText(applyAll()); });
  connect(draft, &QPushButton::clicked, this, [this] { matches_->setText(newRuleFromSelection()); });
  connect(draftPython, &QPushButton::clicked, this, [this] { matches_->setText(newPythonRuleFromSelection()); });
  editor_->setFormatSource([this] { return document_ ? document_->format() : QString(); });
  // A Python library rule compiles in the editor; its matches show when the compile comes back.
  // Each check the editor finishes is shown: as the edited rule once the user changed it (typing,
  // a draft, a file), else as the library rule it holds (a Python one compiles off the GUI thread).
  connect(editor_, &RuleEditor::checked, this, [this] {
    if (editorIsCurrent_) {
      showEditorMatches();
      // An Apply pressed while this text compiled applies it now.
      if (!editor_->busy() && !editor_->pending()) {
        const Waiting apply = std::exchange(waiting_, Waiting::None);
        if (apply == Waiting::All) matches_->setText(applyShownRule());
        else if (apply == Waiting::Match) matches_->setText(applyCurrentMatch());
      }
    } else if (!editorHolds_.isEmpty() && editorHolds_ == selectedRule() && !editor_->busy())
      showSelectedPython(revealPython_);
  });
  connect(editor_, &RuleEditor::saved, this, [this] { reloadLibrary(); });
  connect(editor_, &RuleEditor::edited, this, &RewriteDock::editorTookOver);
  reloadLibrary();
  updateApplyButtons();
}

void RewriteDock::reloadLibrary() {
  const QString keep = selectedRule();
  // Rules are small files: re-reading picks up a rule just saved from the editor.
  *library_ = core::rewrite::RuleLibrary::load();
  compiled_.clear();
  editorHolds_.clear();
  // Reported once per file and problem: a reload after saving a rule repeats only new ones.
  core::model::Diagnostics fresh;
  for (const auto& d : library_->diagnostics())
    if (reportedProblems_.insert(d.toLine()).second) fresh.push_back(d);
  if (!fresh.empty()) Q_EMIT diagnosticsReported(fresh);
  reloading_ = true;
  list_->clear();
  for (const auto& r : (*library_).rules()) {
    auto* item = new QListWidgetItem(r.title, list_);
    item->setData(kIdRole, r.id);
    item->setData(kTextRole, QStringList{r.id, r.title, r.description}.join(QLatin1Char(' ')));
    item->setToolTip(QStringLiteral("%1 (%2)\n%3").arg(r.id, r.source, r.description));
  }
  for (const auto& r : library_->pythonRules()) {
    auto* item = new QListWidgetItem(tr("%1 (Python)").arg(r.title), list_);
    item->setData(kIdRole, r.id);
    item->setData(kTextRole,
                  QStringList{r.id, r.title, r.description, QStringLiteral("python")}.join(QLatin1Char(' ')));
    item->setToolTip(QStringLiteral("%1 (%2, Python)\n%3").arg(r.id, r.source, r.description));
  }
  filter(search_->text());
  // The rule shown stays shown: reselected without reloading it into the editor (which may hold
  // the rule just saved from it).
  if (!keep.isEmpty() && !editor_->modified())
    for (int i = 0; i < list_->count(); ++i)
      if (list_->item(i)->data(kIdRole).toString() == keep) list_->setCurrentRow(i);
  reloading_ = false;
}

QString RewriteDock::titleOf(const QString& id) const {
  if (const auto* r = library_->find(id)) return r->title;
  if (const auto* py = library_->findPython(id)) return tr("%1 (Python)").arg(py->title);
  return id;
}

void RewriteDock::editorTookOver() {
  editorIsCurrent_ = true;
  waiting_ = Waiting::None;  // typed after Apply was pressed: that Apply was for other text
  editorHolds_.clear();  // typed over: the editor's rule is no longer the library's
  {
    const QSignalBlocker block(list_);
    list_->setCurrentItem(nullptr);
    list_->clearSelection();
  }
  // Until its check comes back nothing is shown, so nothing stale can be applied.
  showMatches({}, {}, {}, false);
  matches_->setText(tr("The edited rule: checking…"));
}

bool RewriteDock::mayReplaceEditedRule(QListWidgetItem* picked, QListWidgetItem* before) {
  if (!picked || !editor_->modified()) return true;
  const QString title = picked->text();
  bool discard = true;
  if (discardPrompt_) {
    discard = discardPrompt_(title);
  } else if (QGuiApplication::platformName() != QLatin1String("offscreen") &&
             QGuiApplication::platformName() != QLatin1String("minimal")) {
    discard =
        QMessageBox::question(
            this, tr("Discard the edited rule?"),
            tr("The rule in the editor has changes that are not saved. Show “%1” instead and discard them?").arg(title),
            QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel) == QMessageBox::Discard;
  }
  if (discard) return true;
  const QSignalBlocker block(list_);
  list_->setCurrentItem(before);
  if (!before) list_->clearSelection();
  return false;
}

void RewriteDock::updateApplyButtons() {
  // While typed text waits for its check, Apply to all checks it and applies exactly that.
  const bool typedPending = editorIsCurrent_ && editor_->pending();
  applyShown_->setEnabled(document_ && ((!shownRules_.isEmpty() && shownMatchCount_ > 0) || typedPending));
  applyOne_->setEnabled(document_ && !shownRules_.isEmpty() && current_ >= 0);
}

void RewriteDock::documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event) {
  if (event.replacesDocument()) return setDocument(document);
  if (event.movesRevision()) showRevision();
}

void RewriteDock::setDocument(const core::model::Document* document) {
  selection_.clear();
  document_ = document;
  showRevision();
}

void RewriteDock::showRevision() {
  editor_->setRevision(document_ ? document_->current() : nullptr);
  // The current rule is recounted on the new revision: the list's, or the editor's own.
  if (editorIsCurrent_) showEditorMatches();
  else refreshSelection(false);
}

QStringList RewriteDock::ruleIds() const {
  QStringList ids;
  for (const auto& r : (*library_).rules()) ids << r.id;
  for (const auto& r : library_->pythonRules()) ids << r.id;
  return ids;
}

QString RewriteDock::applyAll() {
  QStringList ids;
  for (const auto& r : library_->rules()) ids << r.id;
  return applyRules(ids);
}

const core::rewrite::PythonRuleSet* RewriteDock::compiledPython(const QString& id, QString* error) const {
  const auto* entry = library_->findPython(id);
  if (!entry) return nullptr;
  auto it = compiled_.find(id);
  if (it == compiled_.end()) {
    // The child Python runs off the GUI thread (a few seconds, once per rule and model).
    QApplication::setOverrideCursor(Qt::WaitCursor);
    auto set = runOffGuiThread([path = entry->path, doc = document_.data()] {
      const QJsonObject ranks = doc ? core::rewrite::siteRanks(*doc) : QJsonObject();
      return std::make_shared<core::rewrite::PythonRuleSet>(core::rewrite::compilePythonRules(path, ranks));
    });
    QApplication::restoreOverrideCursor();
    it = compiled_.emplace(id, std::move(set)).first;
  }
  if (!it->second->ok()) {
    if (error) *error = it->second->error.toString();
    return nullptr;
  }
  return it->second.get();
}

QVector<core::rewrite::Rule> RewriteDock::rulesFor(const QString& id, QString* error) const {
  if (const auto* r = library_->find(id)) return {*r};
  if (!library_->findPython(id)) {
    if (error) *error = tr("unknown rule '%1'").arg(id);
    return {};
  }
  if (!document_) {
    if (error) *error = tr("open a model first");
    return {};
  }
  const auto* set = compiledPython(id, error);
  return set ? set->forFormat(document_->format()) : QVector<core::rewrite::Rule>();
}

void RewriteDock::showSelectedPython(bool reveal) {
  const QString id = selectedRule();
  revealPython_ = false;
  if (editor_->busy()) {
    showMatches({}, {}, {}, false);
    matches_->setText(tr("%1: compiling the Python rule…").arg(titleOf(id)));
    return;
  }
  if (!editor_->rule()) {
    showMatches({}, {}, {}, false);
    matches_->setText(tr("%1: %2").arg(titleOf(id), editor_->status()));
    Q_EMIT ruleSelected(id, -1);
    return;
  }
  if (!document_) {
    showMatches({}, {}, {}, false);
    matches_->setText(library_->findPython(id) ? library_->findPython(id)->description : QString());
    Q_EMIT ruleSelected(id, -1);
    return;
  }
  showMatches(editor_->rules(), editor_->report(), titleOf(id), reveal);
  siteRules_.clear();
  for (int i : editor_->siteRules()) siteRules_ << editor_->rules().value(i);
  Q_EMIT ruleSelected(id, editor_->report().matches);
}

int RewriteDock::matchCount(const QString& id) const {
  const auto* rule = (*library_).find(id);
  if (document_ && library_->findPython(id)) {
    const auto* set = compiledPython(id, nullptr);
    if (!set) return -1;
    int n = 0;
    for (const auto& r : set->forFormat(document_->format()))
      n += core::rewrite::previewMatches(*document_->current(), r).matches;
    return n;
  }
  if (!document_ || !rule) return -1;
  return core::rewrite::previewMatches(*document_->current(), *rule).matches;
}

void RewriteDock::selectRule(const QString& id) {
  for (int i = 0; i < list_->count(); ++i)
    if (list_->item(i)->data(kIdRole).toString() == id) list_->setCurrentRow(i);
}

QString RewriteDock::selectedRule() const {
  auto* item = list_->currentItem();
  return item ? item->data(kIdRole).toString() : QString();
}

void RewriteDock::refreshSelection(bool reveal) {
  const QString id = selectedRule();
  const auto* rule = (*library_).find(id);
  if (const auto* py = library_->findPython(id)) {
    // Loaded once into the editor, which compiles it off the GUI thread; a new revision only
    // recounts (the editor has its revision already).
    revealPython_ = revealPython_ || reveal;
    if (editorHolds_ != id) {
      QFile f(py->path);
      if (f.open(QIODevice::ReadOnly)) {
        editorHolds_ = id;
        editor_->setPythonText(QString::fromUtf8(f.readAll()), py->path);
      }
    }
    showSelectedPython(revealPython_);
    return;
  }
  if (!rule) {
    showMatches({}, {}, {}, false);
    matches_->clear();
    return;
  }
  editorHolds_.clear();
  if (!rule->isComputed()) {
    QFile f(rule->source == QLatin1String("builtin") ? QStringLiteral(":/rules/%1.rule").arg(id) : rule->source);
    if (f.open(QIODevice::ReadOnly)) editor_->setRuleText(QString::fromUtf8(f.readAll()));
  }
  if (!document_) {
    showMatches({}, {}, {}, false);
    matches_->setText(rule->description);
    Q_EMIT ruleSelected(id, -1);
    return;
  }
  const auto report = core::rewrite::previewMatches(*document_->current(), *rule);
  showMatches({*rule}, report, rule->title, reveal);
  Q_EMIT ruleSelected(id, report.matches);
}

void RewriteDock::showEditorMatches() {
  if (!document_ || !editor_->rule() || editor_->busy()) {
    showMatches({}, {}, {}, false);
    // What the editor says (an error, "compiling…"), never an earlier rule's count.
    matches_->setText(!document_ ? tr("The edited rule: open a model to count its matches.")
                                 : tr("The edited rule: %1").arg(editor_->status()));
    return;
  }
  // While typing the view stays put: the outlines show where the matches are.
  showMatches(editor_->rules(), editor_->report(), tr("The edited rule"), /*reveal=*/false);
  siteRules_.clear();
  for (int i : editor_->siteRules()) siteRules_ << editor_->rules().value(i);
}

void RewriteDock::showMatches(const QVector<core::rewrite::Rule>& rules, const core::rewrite::StepReport& report,
                              const QString& origin, bool reveal) {
  siteRules_.clear();
  shownRules_ = origin.isEmpty() ? QVector<core::rewrite::Rule>() : rules;
  shownMatchCount_ = origin.isEmpty() ? 0 : report.matches;
  sites_ = report.sites;
  if (!origin.isEmpty()) {
    QString text = tr("%1: %2 in the current revision")
                       .arg(origin, core::model::counted(report.matches, tr("match"), tr("matches")));
    if (!report.skipped.isEmpty())
      text += tr("; %n candidate(s) skipped, e.g. %1", nullptr, int(report.skipped.size()))
                  .arg(report.skipped.first().reason);
    if (report.matches > 0 && sites_.isEmpty()) text += tr(" (a whole-graph pass: no single matches to show)");
    else if (!sites_.isEmpty()) text += tr(". Outlined on the canvas: orange, and purple for the match shown.");
    matches_->setText(text);
  }
  current_ = -1;
  // Keep the canvas selection's match current when there is one (the user is looking at it).
  int current = matchHoldingSelection();
  if (current >= 0) reveal = false;
  else if (!sites_.isEmpty()) current = 0;
  setCurrentMatch(current, reveal);
}

void RewriteDock::setCurrentMatch(int index, bool reveal) {
  current_ = index >= 0 && index < sites_.size() ? index : -1;
  previous_->setEnabled(sites_.size() > 1);
  next_->setEnabled(sites_.size() > 1);
  updateApplyButtons();
  where_->clear();
  if (current_ >= 0 && document_) {
    where_->setText(matchLabel(current_));
  }
  Q_EMIT matchesChanged(sites_, current_);
  if (current_ >= 0 && reveal) Q_EMIT revealRequested(sites_[current_].anchor);
}

QString RewriteDock::matchLabel(int index) const {
  const auto& site = sites_[index];
  return tr("match %1 of %2: %3").arg(index + 1).arg(sites_.size())
      .arg(site.where.isEmpty() ? tr("node %1").arg(site.anchor) : site.where);
}

void RewriteDock::setSelection(const QVector<core::model::NodeId>& nodes) {
  selection_ = nodes;
  // Made current without moving the view: the user just clicked there.
  if (const int i = matchHoldingSelection(); i >= 0 && i != current_) setCurrentMatch(i, /*reveal=*/false);
}

int RewriteDock::matchHoldingSelection() const {
  const auto holds = [this](int i) {
    return std::any_of(selection_.begin(), selection_.end(), [&](auto id) { return sites_[i].nodes.contains(id); });
  };
  if (current_ >= 0 && holds(current_)) return current_;
  for (int i = 0; i < sites_.size(); ++i)
    if (holds(i)) return i;
  return -1;
}

QString RewriteDock::newRuleFromSelection() {
  if (!document_) return tr("Open a model first.");
  const auto draft = core::rewrite::patternFromNodes(*document_->current(), selection_);
  if (!draft.ok()) return tr("No rule drafted: %1").arg(draft.error);
  editor_->setDraft(QStringLiteral("my-rule"), draft.pattern, draft.conditions);
  return tr("Drafted a pattern from %n node(s): edit the replacement, then save.", nullptr, int(selection_.size()));
}

QString RewriteDock::newPythonRuleFromSelection() {
  if (!document_) return tr("Open a model first.");
  const auto draft = core::rewrite::patternFromNodes(*document_->current(), selection_);
  if (!draft.ok()) return tr("No rule drafted: %1").arg(draft.error);
  if (draft.python.isEmpty()) return tr("No Python rule drafted: %1").arg(draft.pythonError);
  editorHolds_.clear();
  editor_->setPythonDraft(QStringLiteral("my-rule"), draft.python);
  return tr("Drafted a Python pattern from %n node(s): edit the replacement, then save.", nullptr,
            int(selection_.size()));
}

void RewriteDock::filter(const QString& text) {
  for (int i = 0; i < list_->count(); ++i) {
    auto* item = list_->item(i);
    item->setHidden(!text.isEmpty() && !item->data(kTextRole).toString().contains(text, Qt::CaseInsensitive));
  }
}

RewriteDock::~RewriteDock() = default;

core::model::Diagnostics RewriteDock::libraryDiagnostics() const { return library_->diagnostics(); }

QString RewriteDock::applyRules(const QStringList& ids) {
  if (!document_) return tr("Open a model first.");
  QVector<core::rewrite::Step> steps;
  for (const auto& id : ids) {
    if (const auto* r = (*library_).find(id)) {
      steps.push_back(core::rewrite::Step::ofRule(*r));
    } else if (library_->findPython(id)) {
      QString error;
      const auto* set = compiledPython(id, &error);
      if (!set) return tr("%1 does not compile: %2").arg(id, error);
      for (const auto& r : set->forFormat(document_->format())) steps.push_back(core::rewrite::Step::ofRule(r));
    }
  }
  if (steps.isEmpty()) return tr("No rule to apply.");
  return commitSteps(steps);
}

QString RewriteDock::typedRuleReady(Waiting apply) {
  if (!editorIsCurrent_ || !editor_->pending()) return {};
  // Text typed a moment ago is checked now: what is applied is what the editor shows.
  editor_->checkNow();
  if (!editor_->busy()) return {};
  waiting_ = apply;
  return tr("Compiling the edited rule; it is applied when it compiles.");
}

QString RewriteDock::applyCurrentMatch() {
  if (!document_) return tr("Open a model first.");
  if (const QString later = typedRuleReady(Waiting::Match); !later.isEmpty()) return later;
  if (shownRules_.isEmpty() || current_ < 0) return tr("No match to apply.");
  // A Python file's rules each have their own matches: the one that matched here rewrites it.
  const auto& rule = current_ < siteRules_.size() ? siteRules_[current_] : shownRules_.front();
  return commitSteps({core::rewrite::Step::ofRuleAt(rule, sites_[current_].anchor)});
}

QString RewriteDock::applyShownRule() {
  if (!document_) return tr("Open a model first.");
  if (const QString later = typedRuleReady(Waiting::All); !later.isEmpty()) return later;
  if (shownRules_.isEmpty() && !editorIsCurrent_ && selectedRule().isEmpty())
    return tr("Select a rule in the Rewrites dock first.");
  if (shownRules_.isEmpty()) return matches_->text().isEmpty() ? tr("No rule to apply.") : matches_->text();
  if (shownMatchCount_ <= 0) return tr("No match to apply.");
  QVector<core::rewrite::Step> steps;
  for (const auto& r : shownRules_) steps.push_back(core::rewrite::Step::ofRule(r));
  return commitSteps(steps);
}

QString RewriteDock::commitSteps(const QVector<core::rewrite::Step>& steps) {
  QApplication::setOverrideCursor(Qt::WaitCursor);
  core::rewrite::ApplyResult result;
  int index = -1;
  if (committer_) {
    result = committer_(steps);
    index = document_->currentIndex();
  } else {
    result.error = tr("Nothing commits rewrites for this dock.");
  }
  QApplication::restoreOverrideCursor();
  if (!result.ok()) return result.error;
  if (result.unchanged) return tr("Nothing to rewrite: the graph would stay as it is, so no revision was recorded.");
  int total = 0;
  for (const auto& r : result.reports) total += r.matches;
  Q_EMIT applied(index);
  if (total == 1) return tr("1 rewrite; ops %1 → %2").arg(result.opsBefore).arg(result.opsAfter);
  return tr("%1 rewrites; ops %2 → %3").arg(total).arg(result.opsBefore).arg(result.opsAfter);
}

}  // namespace graft::ui
