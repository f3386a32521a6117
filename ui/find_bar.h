#pragma once
// The find bar (Ctrl+F): op nodes whose op, kind, module path or value names contain the text;
// Enter / Shift+Enter step through the hits in graph order.
#include "core/model/graph_view.h"

#include <QtWidgets/QWidget>

class QLabel;
class QLineEdit;

namespace graft::ui {

class FindBar : public QWidget {
  Q_OBJECT
 public:
  explicit FindBar(QWidget* parent = nullptr);
  void setView(const core::model::GraphView* view);
  // Runs a search and activates its first hit; returns how many nodes match.
  int search(const QString& text);
  void next();
  void previous();
  const QVector<core::model::NodeId>& matches() const { return matches_; }
  int current() const { return current_; }
  void activate();  // shows the bar and focuses the text field

 Q_SIGNALS:
  void matchActivated(core::model::NodeId id);

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void step(int delta);
  const core::model::GraphView* view_ = nullptr;
  QLineEdit* edit_ = nullptr;
  QLabel* count_ = nullptr;
  QVector<core::model::NodeId> matches_;
  int current_ = -1;
};

}  // namespace graft::ui
