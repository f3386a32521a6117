#pragma once
// Writing a rule, as IR text or as Python. IR: id and title, pattern and replacement side by side
// (IR highlighted), optional conditions; as you type it is parsed (errors with line:column) and its
// matches counted on the current revision. Python: one source (Python highlighted) defining
// `pattern` and `replacement` or RULES; as you type (debounced) it is compiled in a child Python
// off the GUI thread, a newer edit making older results stale, and its matches counted; errors
// give the rule file's line. Save writes <id>.rule or <id>.py into the user rule folder.
#include "core/model/revision.h"
#include "core/rewrite/apply.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

#include <QtWidgets/QWidget>

class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QStackedWidget;
class QTemporaryDir;
class QTimer;

namespace graft::core::rewrite { struct PythonRuleSet; }

namespace graft::ui {

class RuleEditor : public QWidget {
  Q_OBJECT
 public:
  enum class Language { Ir, Python };
  // A Python rule's live check waits this long after the last keystroke: it starts Python.
  static constexpr int kPythonDebounceMs = 600;

  explicit RuleEditor(QWidget* parent = nullptr);
  ~RuleEditor() override;

  // The revision matches are counted on (none: parse only).
  void setRevision(core::model::RevisionPtr revision);
  // Which form a Python rule takes ("torchscript" or "pt2"): the open document's format.
  void setFormatSource(std::function<QString()> format) { format_ = std::move(format); }
  // Fills the editor from a rule file's text.
  void setRuleText(const QString& text);
  // Fills the editor with a Python rule file's source and compiles it at once; `fileName` names it
  // in messages and gives the id.
  void setPythonText(const QString& source, const QString& fileName = {});
  // Reads a .rule or .py file into the editor; false with `error` set when it cannot be read.
  bool openRuleFile(const QString& path, QString* error = nullptr);
  // Starts a new rule from a drafted pattern (replacement = pattern, to edit) and conditions.
  void setDraft(const QString& id, const QString& pattern, const QStringList& conditions);
  // The same as Python source (a pattern/replacement pair), compiled at once.
  void setPythonDraft(const QString& id, const QString& source);
  Language language() const { return language_; }
  void setLanguage(Language language);
  // The rule file this editor describes (IR text), and the Python source.
  QString ruleText() const;
  QString pythonText() const;
  // The last check: an error ("line:column: message", or "line N: …" for Python) or "N matches".
  QString status() const;
  int matchCount() const { return matches_; }
  // A Python compile is running.
  bool busy() const { return busy_; }
  // The text was changed and its check has not come back (typing pauses first, or Python compiles).
  bool pending() const;
  // Checks the typed text now instead of when typing pauses (an IR rule is checked before this
  // returns; a Python one starts compiling).
  void checkNow();
  // The rule as last checked, when it parsed, and its matches on the revision. A Python file can
  // hold several rules: rules() lists them all, rule() is the first, and the report merges theirs.
  const std::optional<core::rewrite::Rule>& rule() const { return rule_; }
  const QVector<core::rewrite::Rule>& rules() const { return rules_; }
  const core::rewrite::StepReport& report() const { return report_; }
  // For each site of report(): the index in rules() of the rule that matched there.
  const QVector<int>& siteRules() const { return siteRules_; }
  // Writes the rule into the user rule folder; returns the path, or empty with `error` set.
  QString save(QString* error = nullptr);
  // Typed into, drafted or switched form since the rule was loaded or saved: leaving it drops work.
  bool modified() const { return modified_; }
  // The user chose to drop the edits (another rule became current): no longer modified.
  void discardEdits() { modified_ = false; }

 Q_SIGNALS:
  void checked(int matches, const QString& error);
  // The user changed the rule (typing, a draft, another form, a file opened): the editor's rule is
  // now the one to preview and apply. Comes before the check that follows.
  void edited();
  // After a check caused by typing or a draft (not by loading a rule): the preview to show.
  void previewChanged();
  void saved(const QString& path);

 private:
  void check();
  // Typing paused (or Apply asked): check the text and show its preview.
  void checkTyped();
  void markEdited();
  // Shows the other form without checking (the caller fills it, then checks).
  void switchForm(Language language);
  void checkIr();
  void startPythonCheck();
  void pythonChecked(const core::rewrite::PythonRuleSet& set);
  void countPythonMatches();
  void markErrorLine(int line);
  void openDialog();
  QString pythonFileName() const;
  QComboBox* languageBox_;
  QLineEdit* id_;
  QLineEdit* title_;
  QFormLayout* form_;
  QStackedWidget* forms_;
  QPlainTextEdit* pattern_;
  QPlainTextEdit* replacement_;
  QPlainTextEdit* conditions_;
  QPlainTextEdit* python_;
  QLabel* status_;
  QTimer* debounce_;
  core::model::RevisionPtr revision_;
  std::function<QString()> format_;
  Language language_ = Language::Ir;
  int matches_ = -1;
  std::optional<core::rewrite::Rule> rule_;
  QVector<core::rewrite::Rule> rules_;
  core::rewrite::StepReport report_;
  QVector<int> siteRules_;
  QString tests_;  // the loaded rule's [test ...] sections, kept verbatim on save
  bool modified_ = false;
  bool filling_ = false;  // the text is being loaded, not typed
  // Python: each compile has a generation; a result whose generation is not the latest is stale.
  quint64 generation_ = 0;
  bool busy_ = false;
  bool previewPending_ = false;  // the running compile was caused by typing or a draft
  QString pythonFile_;           // the loaded file's name, for messages and the default id
  // The last compile of the current source: a new revision only recounts its matches.
  std::shared_ptr<core::rewrite::PythonRuleSet> compiledSet_;
  QString checkedSource_;  // the source of the last compile that came back
  std::unique_ptr<QTemporaryDir> work_;  // the sources handed to the child Python
  std::shared_ptr<std::atomic<bool>> cancel_;  // set: the running compile is no longer wanted
};

}  // namespace graft::ui
