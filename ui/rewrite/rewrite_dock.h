#pragma once
// The Rewrites dock: the rule library with search; the selected rule's matches on the current
// revision, highlighted on the canvas and stepped through one by one; Apply this match / Apply
// to all matches / Apply every rule (each one revision, one undo step); and the rule editor,
// whose live matches take over the highlight while you type.
#include <functional>
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

  void setDocument(const core::model::Document* document);
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
  // `reveal`: also show the first match on the canvas (when the user picked the rule).
  void refreshSelection(bool reveal);
  void filter(const QString& text);
  void showMatches(const core::rewrite::Rule& rule, const core::rewrite::StepReport& report, const QString& origin,
                   bool reveal);
  void showEditorMatches();
  QString matchLabel(int index) const;
  // The match holding a selected node: the current one if it does, else the first; -1 if none.
  int matchHoldingSelection() const;
  QString commitSteps(const QVector<core::rewrite::Step>& steps);
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
  RuleEditor* editor_;
  std::optional<core::rewrite::Rule> shownRule_;  // whose matches are shown
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
};

}  // namespace graft::ui
