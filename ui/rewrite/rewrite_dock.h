#pragma once
// The Rewrites dock: the rule library with search, the selected rule's match count on the current
// revision, Apply / Apply all (one revision, one undo step) and the rule editor.
#include <QtWidgets/QWidget>

#include <memory>

class QLabel;
class QLineEdit;
class QListWidget;

namespace graft::core::model { class Document; }
namespace graft::core::rewrite { class RuleLibrary; }

namespace graft::ui {

class RuleEditor;

class RewriteDock : public QWidget {
  Q_OBJECT
 public:
  explicit RewriteDock(QWidget* parent = nullptr);
  ~RewriteDock() override;

  void setDocument(core::model::Document* document);
  void reloadLibrary();
  // Selection-independent API (for tests and other views).
  QStringList ruleIds() const;
  int matchCount(const QString& id) const;  // -1 when no document or unknown rule
  void selectRule(const QString& id);
  QString selectedRule() const;
  // Applies the given rules in order as one revision committed to the document; returns the
  // error or an empty string.
  QString applyRules(const QStringList& ids);
  QString applyAll() { return applyRules(ruleIds()); }
  RuleEditor* editor() const { return editor_; }

 Q_SIGNALS:
  void ruleSelected(const QString& id, int matches);
  void applied(int revisionIndex);

 private:
  void refreshSelection();
  void filter(const QString& text);
  core::model::Document* document_ = nullptr;
  std::unique_ptr<core::rewrite::RuleLibrary> library_;  // re-read on reloadLibrary()
  QLineEdit* search_;
  QListWidget* list_;
  QLabel* matches_;
  RuleEditor* editor_;
};

}  // namespace graft::ui
