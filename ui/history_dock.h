#pragma once
// The History dock: every revision of the document as a tree (indented by depth), the current one
// marked; a click goes to that revision. Below, what the current revision changed vs its parent,
// counted and named as the Diff view does (core/edit/graph_diff, through provenance).
#include <QtWidgets/QWidget>

class QListWidget;
class QLabel;
class QPushButton;

namespace graft::core::model { class Document; }

namespace graft::ui {

class HistoryDock : public QWidget {
  Q_OBJECT
 public:
  explicit HistoryDock(QWidget* parent = nullptr);
  void setDocument(core::model::Document* document);
  void refresh();
  QListWidget* list() const { return list_; }
  // The two selected revisions (Ctrl+click selects a second one), lower index first; empty
  // unless exactly two are selected.
  QVector<int> selectedPair() const;

 Q_SIGNALS:
  void diffRequested(int a, int b);

 private:
  core::model::Document* document_ = nullptr;
  QListWidget* list_ = nullptr;
  QLabel* diffSummary_ = nullptr;
  QListWidget* diff_ = nullptr;  // scrolls: a rule with many matches never grows the window
  QPushButton* diffButton_ = nullptr;
};

}  // namespace graft::ui
