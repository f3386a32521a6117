#pragma once
// The canvas scene: one item per visible op node (kept by NodeId), group, and edge route. Items
// store only ids and geometry and read labels from the GraphView when they paint.
#include "core/layout/diagram.h"
#include "core/model/graph_view.h"

#include <QtCore/QSet>
#include <QtWidgets/QGraphicsScene>
#include <unordered_map>

namespace graft::ui::canvas {

class NodeItem;
class GroupItem;

class GraphScene : public QGraphicsScene {
  Q_OBJECT
 public:
  explicit GraphScene(QObject* parent = nullptr);

  void setView(const core::model::GraphView* view);
  const core::model::GraphView* view() const { return view_; }
  void setDiagram(const core::layout::Diagram& diagram);
  // Repeats drawn folded: a node in a hidden module is shown by its repeat's box.
  // A folded repeat's box carries the heat, changes and marks of every module it stands for.
  void setFolds(const core::layout::Folds& folds);
  const core::layout::Diagram& diagram() const { return diagram_; }

  NodeItem* nodeItem(core::model::NodeId id) const;
  GroupItem* groupItem(int group) const;
  // Zoomed far out the canvas paints the fast overview instead of the items (which then paint
  // nothing and take no clicks).
  void setDetailVisible(bool visible);
  bool detailVisible() const { return detailVisible_; }
  void setSelectedNode(core::model::NodeId id);
  core::model::NodeId selectedNode() const { return selected_; }
  // The visible item that shows `id`: its own box or the collapsed group holding it.
  QGraphicsItem* itemShowing(core::model::NodeId id) const;

  // The cost heatmap: self time per node (ms). Empty switches it off. Collapsed groups show
  // the sum over the nodes inside them.
  // `signedDelta`: the values are changes of time (after − before, ms), coloured green for
  // savings and red for losses around white. `groupsTakeMax`: values that do not add up (errors):
  // a collapsed group shows its worst node instead of the sum.
  void setHeat(const QHash<core::model::NodeId, double>& selfMs, bool signedDelta = false, bool groupsTakeMax = false);
  bool heatVisible() const { return !heat_.isEmpty(); }
  bool heatIsDelta() const { return signedHeat_; }
  double heatMaxMs() const { return heatMax_; }
  // The fill of node `id` / collapsed group `group` under the heatmap; false where none applies.
  bool nodeHeat(core::model::NodeId id, QColor* colour) const;
  bool groupHeat(int group, QColor* colour) const;

  // What the current revision changed relative to its parent: added nodes are outlined green,
  // rewired or re-valued ones blue; a collapsed group holding any of them gets a dashed outline.
  enum class Change { Added, Modified };
  void setChanges(const QHash<core::model::NodeId, Change>& changes);
  const QHash<core::model::NodeId, Change>& changes() const { return changes_; }
  bool groupHasChange(int group) const { return changedGroups_.contains(group); }

  // Nodes called out by a tool (a rule's matches, a comparison's divergence): outlined in the
  // mark's colour outside any change outline and over any heat fill, with the note in the
  // tooltip. A collapsed group holding marks is outlined in the colour of its highest-ranked one.
  // Marks of negative rank (a comparison's "not compared", grey) only outline and explain.
  struct Mark {
    QColor colour;
    QString note;
    int rank = 0;
  };
  void setMarks(const QHash<core::model::NodeId, Mark>& marks);
  const QHash<core::model::NodeId, Mark>& marks() const { return marks_; }
  const Mark* markOf(core::model::NodeId id) const;
  const Mark* groupMark(int group) const;

  // Extra tooltip lines per node (a diff's per-node error and timings).
  void setNotes(const QHash<core::model::NodeId, QString>& notes) { notes_ = notes; }
  QString noteOf(core::model::NodeId id) const { return notes_.value(id); }

  // Nodes added to the selection with Ctrl+click, drawn as selected (for multi-node actions).
  void setPicked(const QSet<core::model::NodeId>& picked);
  const QSet<core::model::NodeId>& picked() const { return picked_; }
  bool nodeSelected(core::model::NodeId id) const {
    return id == selected_ || picked_.contains(id) || (id == stubSource_ && id != core::model::kNoNode);
  }
  // The pointer over a stub (core/layout/edge_stubs.h): its value's source and every route of that
  // value are drawn highlighted until it leaves. `route` indexes diagram().edges; -1 for none.
  void setHoveredStub(int route);
  // Whether route `route` carries the value of the hovered stub.
  bool routeOfHoveredValue(int route) const;
  // A click on a reader's stub selects its source and brings it into view (nodeActivated).
  void stubClicked(int route);

  // What hovering at `scenePos` shows: an edge's value and tensor type, a node's kind and outputs.
  QString toolTipAt(QPointF scenePos) const;

  // Called by the items.
  void nodeClicked(core::model::NodeId id) { Q_EMIT nodeActivated(id); }
  void nodeCtrlClicked(core::model::NodeId id) { Q_EMIT nodePicked(id); }
  void toggleClicked(int group) { Q_EMIT groupToggled(group); }

 Q_SIGNALS:
  void nodeActivated(core::model::NodeId id);
  void nodePicked(core::model::NodeId id);  // Ctrl+click: add to or drop from the selection
  void groupToggled(int group);

 protected:
  void helpEvent(QGraphicsSceneHelpEvent* event) override;
  // The marks' rings, over every item, the highest rank last: a verdict outline is never
  // hidden by a heat fill, a neighbouring box or a lower-ranked ring.
  void drawForeground(QPainter* painter, const QRectF& rect) override;

 private:
  // Calls `visit(group)` for every module above node `id` (not the root, which never collapses).
  template <typename Visit>
  void forEachGroupAbove(core::model::NodeId id, Visit visit) const {
    const auto* n = view_ ? view_->node(id) : nullptr;
    for (int g = n ? n->group : -1; g > 0; g = view_->groups[g].parent) {
      visit(g);
      if (auto rep = folds_.constFind(g); rep != folds_.constEnd()) visit(*rep);
    }
  }

  const core::model::GraphView* view_ = nullptr;
  core::layout::Diagram diagram_;
  std::unordered_map<core::model::NodeId, NodeItem*> nodes_;
  std::unordered_map<int, GroupItem*> groups_;
  core::model::NodeId selected_ = core::model::kNoNode;
  int hoveredStub_ = -1;                                   // a route of diagram_, or -1
  core::model::NodeId stubSource_ = core::model::kNoNode;  // the hovered stub's source node
  bool detailVisible_ = true;
  QHash<core::model::NodeId, double> heat_;
  QHash<core::model::NodeId, Change> changes_;
  QSet<int> changedGroups_;
  QHash<core::model::NodeId, Mark> marks_;
  QHash<int, core::model::NodeId> groupMarks_;  // group -> its highest-ranked marked node
  QSet<core::model::NodeId> picked_;
  QHash<core::model::NodeId, QString> notes_;
  core::layout::Folds folds_;
  QHash<int, double> groupHeat_;
  double heatMax_ = 0;  // the largest value (the largest |change| for a delta)
  bool signedHeat_ = false;
  bool heatGroupsTakeMax_ = false;
};

}  // namespace graft::ui::canvas
