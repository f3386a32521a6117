#pragma once
// The Rewrites dock: the rule library with search; one current rule, shown in the editor: the
// rule picked in the list, or the editor's own once you type (the list then selects nothing, and
// picking a list rule over unsaved edits asks first). Its matches on the current revision are
// highlighted on the canvas and stepped through one by one; Apply this match / Apply to all
// matches rewrite with exactly that previewed rule, and are disabled while it has no match or
// does not parse; Apply every rule runs the library. Each is one revision and one undo step, and
// a rewrite that changes nothing records none.
#include <functional>
#include "core/document/change_event.h"
#include "core/rewrite/apply.h"

#include <QtCore/QPointer>
#include <QtWidgets/QWidget>

#include <map>
#include <memory>
#include <optional>
#include <set>

class QLabel;
class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace graft::core::model { class Document; }
namespace graft::core::rewrite { class RuleLibrary; struct PythonRuleSet; }

namespace graft::ui {

class RuleEditor;

class RewriteDock : public QWidget {
  Q_OBJECT
 public:
  explicit RewriteDock(QWidget* parent = nullptr);
  ~RewriteDock() override;

  // Another document (nullptr clears): the selection goes, the rules are counted on it.
  void setDocument(const core::model::Document* document);
  // The open document changed: another document as setDocument; another current revision keeps
  // the selection and counts the current rule's matches on the new revision.
  void documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event);
  // Who commits a rewrite: the editing session, so that it is journaled (MainWindow sets it).
  // Without one, rewrites are committed to the document directly.
  using Committer = std::function<core::rewrite::ApplyResult(const QVector<core::rewrite::Step>&)>;
  void setCommitter(Committer committer) { committer_ = std::move(committer); }
  void reloadLibrary();
  // Selection-independent API (for tests and other views).
  QStringList ruleIds() const;
  int matchCount(const QString& id) const;  // -1 when no document or unknown rule
  void selectRule(const QString& id);
  QString selectedRule() const;
  // Applies the given rules in order as one revision committed to the document; returns the
  // error or an empty string.
  QString applyRules(const QStringList& ids);
  // The rules `id` stands for on the open document: a text rule, or a Python rule of the library
  // compiled in the document's format (once per library load; it runs Python). Empty with
  // `error` set when there are none.
  QVector<core::rewrite::Rule> rulesFor(const QString& id, QString* error = nullptr) const;
  // Every text rule in library order (the Python twins repeat them, and each would start Python).
  QString applyAll();
  // Applies the current rule exactly as previewed (every match shown), as one revision ("Apply to
  // all matches"); returns the message shown.
  QString applyShownRule();
  // The rules whose matches are shown: the current rule (a Python file can hold several); empty
  // while the edited rule has an error or is compiling.
  const QVector<core::rewrite::Rule>& shownRules() const { return shownRules_; }
  // Asked before a list rule replaces an edited, unsaved rule in the editor: true to discard it.
  // By default a question box (on the offscreen platform, where no one answers: discard).
  using DiscardPrompt = std::function<bool(const QString& ruleTitle)>;
  void setDiscardPrompt(DiscardPrompt prompt) { discardPrompt_ = std::move(prompt); }
  RuleEditor* editor() const { return editor_; }

  // The matches shown (of the selected rule, or of the editor's rule while it is being edited)
  // and which one is current.
  const QVector<core::rewrite::MatchSite>& shownMatches() const { return sites_; }
  int currentMatch() const { return current_; }
  // `reveal`: open the groups above the match and select it on the canvas.
  void setCurrentMatch(int index, bool reveal = true);
  // Rewrites only the current match, as one revision; returns the message shown.
  QString applyCurrentMatch();
  // The canvas selection: a selected node inside a match makes that match current, and
  // "New rule from selection" drafts a pattern from these nodes.
  void setSelection(const QVector<core::model::NodeId>& nodes);
  QString newRuleFromSelection();
  // The same nodes as a Python pattern/replacement pair (torch.ops.aten calls), compiled in the editor.
  QString newPythonRuleFromSelection();

  // The rule files of the library that did not load (reloads report new ones as diagnosticsReported).
  core::model::Diagnostics libraryDiagnostics() const;

 Q_SIGNALS:
  void ruleSelected(const QString& id, int matches);
  void applied(int revisionIndex);
  // The matches to highlight (empty: none) and the current one (-1: none).
  void matchesChanged(const QVector<core::rewrite::MatchSite>& sites, int current);
  // Stepping through matches: show this node.
  void revealRequested(core::model::NodeId node);
  // Rule files that did not load, a rewrite's error and its skipped matches (Issues dock).
  void diagnosticsReported(const core::model::Diagnostics& diagnostics);

 private:
  // The editor and the match counts follow the document's current revision.
  void showRevision();
  // `reveal`: also show the first match on the canvas (when the user picked the rule).
  void refreshSelection(bool reveal);
  void filter(const QString& text);
  // `rules` (named `origin` in the text; none: nothing shown) and their matches.
  void showMatches(const QVector<core::rewrite::Rule>& rules, const core::rewrite::StepReport& report,
                   const QString& origin, bool reveal);
  void showEditorMatches();
  // The editor's rule became the current one: the list selects nothing.
  void editorTookOver();
  // A list rule was picked: false (and the pick undone) when the user keeps the edited rule.
  bool mayReplaceEditedRule(QListWidgetItem* picked, QListWidgetItem* before);
  void updateApplyButtons();
  QString titleOf(const QString& id) const;
  QString matchLabel(int index) const;
  // The match holding a selected node: the current one if it does, else the first; -1 if none.
  int matchHoldingSelection() const;
  QString commitSteps(const QVector<core::rewrite::Step>& steps);
  // An Apply waiting for the edited Python rule's compile.
  enum class Waiting { None, All, Match };
  // Apply pressed while the typed rule is not checked yet: checks it now. Empty when the shown
  // rule is the editor's text; else the message to show while it compiles (then applied).
  QString typedRuleReady(Waiting apply);
  Waiting waiting_ = Waiting::None;
  QPointer<const core::model::Document> document_;
  Committer committer_;
  std::unique_ptr<core::rewrite::RuleLibrary> library_;  // re-read on reloadLibrary()
  std::set<QString> reportedProblems_;  // rule-file problems already sent to the Issues dock
  QLineEdit* search_;
  QListWidget* list_;
  QLabel* matches_;
  QLabel* where_;
  QPushButton* previous_;
  QPushButton* next_;
  QPushButton* applyOne_;
  QPushButton* applyShown_;
  RuleEditor* editor_;
  QVector<core::rewrite::Rule> shownRules_;  // whose matches are shown: the current rule
  int shownMatchCount_ = 0;                  // their matches (a whole-graph pass has no sites)
  QVector<core::rewrite::MatchSite> sites_;
  int current_ = -1;
  QVector<core::model::NodeId> selection_;
  // Python rules of the library: compiled once per id (it runs Python); the editor compiles the
  // one selected off the GUI thread and the dock shows its matches when it comes back.
  const core::rewrite::PythonRuleSet* compiledPython(const QString& id, QString* error) const;
  void showSelectedPython(bool reveal);
  mutable std::map<QString, std::shared_ptr<const core::rewrite::PythonRuleSet>> compiled_;
  QString editorHolds_;  // the Python library rule loaded in the editor, untouched since
  bool revealPython_ = false;
  QVector<core::rewrite::Rule> siteRules_;  // the rule of each shown match (Python files hold several)
  DiscardPrompt discardPrompt_;
  bool reloading_ = false;  // the list is being refilled: not a pick by the user
  bool editorIsCurrent_ = false;  // the editor's own rule is the current one (typed, drafted, opened)
};

}  // namespace graft::ui
