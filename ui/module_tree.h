#pragma once
// The Modules dock: the module hierarchy (layer1 > 0 > conv1) with the ops inside each module.
#include "core/model/graph_view.h"

#include <QtWidgets/QTreeWidget>

namespace graft::ui {

class ModuleTree : public QTreeWidget {
  Q_OBJECT
 public:
  explicit ModuleTree(QWidget* parent = nullptr);
  void setView(const core::model::GraphView* view);
  // Selects (and reveals) the row of op node `id`.
  void selectNode(core::model::NodeId id);

 Q_SIGNALS:
  void nodeActivated(core::model::NodeId id);

 private:
  QHash<core::model::NodeId, QTreeWidgetItem*> itemByNode_;
};

}  // namespace graft::ui
