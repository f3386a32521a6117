#include "ui/module_tree.h"

#include <QtWidgets/QHeaderView>

namespace graft::ui {

using core::model::GraphView;
using core::model::NodeId;

namespace {
constexpr int kNodeIdRole = Qt::UserRole + 1;
}

ModuleTree::ModuleTree(QWidget* parent) : QTreeWidget(parent) {
  setObjectName(QStringLiteral("moduleTree"));
  setColumnCount(3);
  setHeaderLabels({tr("Module / op"), tr("Type"), tr("Ops")});
  // Columns as wide as their contents, scrolled sideways when the dock is narrow: a module
  // path deep in the tree is read whole, never cut to "…".
  header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  header()->setStretchLastSection(false);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  setUniformRowHeights(true);
  connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (!item) return;
    const auto id = item->data(0, kNodeIdRole).toULongLong();
    if (id != core::model::kNoNode) Q_EMIT nodeActivated(id);
  });
}

void ModuleTree::setView(const GraphView* view) {
  clear();
  itemByNode_.clear();
  if (!view) return;
  QVector<QTreeWidgetItem*> groupItems(view->groups.size(), nullptr);
  for (const auto& g : view->groups) {
    QTreeWidgetItem* item = nullptr;
    if (g.parent < 0) {
      item = new QTreeWidgetItem(this, {tr("(model)"), g.typeName, QString::number(g.totalOps)});
    } else {
      item = new QTreeWidgetItem(groupItems[g.parent], {g.name, g.typeName, QString::number(g.totalOps)});
    }
    item->setToolTip(0, g.path.isEmpty() ? tr("the whole model") : g.path);
    groupItems[g.index] = item;
  }
  // Ops go after their group's submodules, in graph order.
  for (const auto& n : view->nodes) {
    auto* item = new QTreeWidgetItem(groupItems[n.group], {n.op, n.kind, QString()});
    item->setData(0, kNodeIdRole, QVariant::fromValue<qulonglong>(n.id));
    item->setForeground(0, palette().color(QPalette::Link));
    item->setToolTip(0, n.outputs.isEmpty() ? n.kind : n.kind + QStringLiteral(" → ") + n.outputs.front().type);
    itemByNode_.insert(n.id, item);
  }
  if (!groupItems.isEmpty()) groupItems.front()->setExpanded(true);
}

void ModuleTree::selectNode(NodeId id) {
  auto* item = itemByNode_.value(id);
  if (!item || item == currentItem()) return;
  const QSignalBlocker block(this);
  setCurrentItem(item);
  scrollToItem(item);
}

}  // namespace graft::ui
