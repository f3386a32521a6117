#pragma once
// The Inspector dock: everything about the selected node — op, schema, inputs with folded
// constants and their values, outputs with dtype/shape, module path and source location.
#include "core/model/graph_view.h"

#include <QtWidgets/QTextBrowser>

namespace graft::ui {

class Inspector : public QTextBrowser {
  Q_OBJECT
 public:
  explicit Inspector(QWidget* parent = nullptr);
  void showNode(const core::model::GraphView* view, core::model::NodeId id);
  core::model::NodeId node() const { return node_; }

 private:
  core::model::NodeId node_ = core::model::kNoNode;
};

}  // namespace graft::ui
