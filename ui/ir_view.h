#pragma once
// A read-only listing of a revision (its TorchScript IR, its fx graph or its Python code) with
// the selected node's line highlighted; clicking a line selects its node.
#include "core/model/graph_view.h"

#include <QtWidgets/QPlainTextEdit>

namespace graft::ui {

class IrView : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit IrView(QWidget* parent = nullptr);
  void setRevisionText(const QString& ir, const core::model::GraphView* view);
  // A listing with the line of each node.
  void setListing(const QString& text, const QHash<core::model::NodeId, int>& lineOf);
  void highlightNode(core::model::NodeId id);
  core::model::NodeId nodeAtLine(int line) const { return nodeByLine_.value(line, core::model::kNoNode); }

 Q_SIGNALS:
  void nodeActivated(core::model::NodeId id);

 protected:
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  QHash<int, core::model::NodeId> nodeByLine_;
  QHash<core::model::NodeId, int> lineByNode_;
};

}  // namespace graft::ui
