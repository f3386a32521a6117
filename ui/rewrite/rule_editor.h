#pragma once
// Writing a rule: id and title, pattern and replacement side by side (IR highlighted), optional
// conditions; as you type it is parsed (errors with line:column) and its matches counted on the
// current revision. Save writes <id>.rule into the user rule folder.
#include "core/model/revision.h"
#include "core/rewrite/apply.h"

#include <optional>

#include <QtWidgets/QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTimer;

namespace graft::ui {

class RuleEditor : public QWidget {
  Q_OBJECT
 public:
  explicit RuleEditor(QWidget* parent = nullptr);

  // The revision matches are counted on (none: parse only).
  void setRevision(core::model::RevisionPtr revision);
  // Fills the editor from a rule file's text.
  void setRuleText(const QString& text);
  // Starts a new rule from a drafted pattern (replacement = pattern, to edit) and conditions.
  void setDraft(const QString& id, const QString& pattern, const QStringList& conditions);
  // The rule file this editor describes.
  QString ruleText() const;
  // The last check: an error ("line:column: message") or "N matches".
  QString status() const;
  int matchCount() const { return matches_; }
  // The rule as last checked, when it parsed, and its matches on the revision.
  const std::optional<core::rewrite::Rule>& rule() const { return rule_; }
  const core::rewrite::StepReport& report() const { return report_; }
  // Writes the rule into the user rule folder; returns the path, or empty with `error` set.
  QString save(QString* error = nullptr);

 Q_SIGNALS:
  void checked(int matches, const QString& error);
  // After a check caused by typing or a draft (not by loading a rule): the preview to show.
  void previewChanged();
  void saved(const QString& path);

 private:
  void check();
  QLineEdit* id_;
  QLineEdit* title_;
  QPlainTextEdit* pattern_;
  QPlainTextEdit* replacement_;
  QPlainTextEdit* conditions_;
  QLabel* status_;
  QTimer* debounce_;
  core::model::RevisionPtr revision_;
  int matches_ = -1;
  std::optional<core::rewrite::Rule> rule_;
  core::rewrite::StepReport report_;
  QString tests_;  // the loaded rule's [test ...] sections, kept verbatim on save
};

}  // namespace graft::ui
