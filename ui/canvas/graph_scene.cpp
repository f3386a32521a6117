#include "ui/canvas/graph_scene.h"

#include "core/layout/edge_stubs.h"
#include "core/layout/labels.h"
#include "core/model/symbol_ranges.h"
#include "ui/render/diagram_painter.h"
#include "ui/render/edge_labels.h"
#include "ui/canvas/graph_items.h"

#include <QtGui/QPainter>
#include <QtWidgets/QGraphicsSceneHelpEvent>
#include <QtWidgets/QToolTip>

namespace graft::ui::canvas {

using core::model::NodeId;


GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) { setBackgroundBrush(Qt::white); }

void GraphScene::setView(const core::model::GraphView* view) {
  clear();
  nodes_.clear();
  groups_.clear();
  diagram_ = {};
  view_ = view;
  selected_ = core::model::kNoNode;
}

void GraphScene::setDiagram(const core::layout::Diagram& diagram) {
  clear();
  nodes_.clear();
  groups_.clear();
  diagram_ = diagram;
  if (!view_) return;
  for (const auto& g : diagram_.groups) {
    auto* item = new GroupItem(g.group, g.rect, g.expanded, g.depth, g.label);
    addItem(item);
    groups_[g.group] = item;
  }
  QVector<QPainterPath> paths;
  paths.reserve(diagram_.edges.size());
  for (const auto& route : diagram_.edges) paths << edgePath(route);
  // Placed once for the whole diagram, as the exporters place them.
  const QVector<QRectF> labelRects = placeDiagramEdgeLabels(diagram_, *view_, paths);
  for (int i = 0; i < diagram_.edges.size(); ++i) {
    const auto& route = diagram_.edges[i];
    const QString label = core::layout::routeLabel(route, *view_);
    auto* item = new EdgeItem(i, paths[i], label, labelRects[i]);
    addItem(item);
  }
  for (int i = 0; i < diagram_.terminals.size(); ++i) {
    auto* item = new TerminalItem(i, diagram_.terminals[i].rect);
    addItem(item);
  }
  for (const auto& n : diagram_.nodes) {
    auto* item = new NodeItem(n.id, n.rect);
    addItem(item);
    nodes_[n.id] = item;
  }
  setSceneRect(diagram_.bounds.adjusted(-40, -40, 40, 40));
  hoveredStub_ = -1;
  stubSource_ = core::model::kNoNode;
  setSelectedNode(selected_);
}

NodeItem* GraphScene::nodeItem(NodeId id) const {
  auto it = nodes_.find(id);
  return it == nodes_.end() ? nullptr : it->second;
}

GroupItem* GraphScene::groupItem(int group) const {
  auto it = groups_.find(group);
  return it == groups_.end() ? nullptr : it->second;
}

QGraphicsItem* GraphScene::itemShowing(NodeId id) const {
  if (auto* n = nodeItem(id)) return n;
  const auto* vn = view_ ? view_->node(id) : nullptr;
  if (!vn) return nullptr;
  // The outermost collapsed group above the node.
  GroupItem* found = nullptr;
  for (int g = vn->group; g >= 0; g = view_->groups[g].parent)
    if (auto* gi = groupItem(folds_.value(g, g)); gi && !gi->expanded()) found = gi;
  return found;
}

void GraphScene::setFolds(const core::layout::Folds& folds) {
  folds_ = folds;
  // Group sums depend on which box stands for which module.
  setHeat(QHash<NodeId, double>(heat_), signedHeat_, heatGroupsTakeMax_);
  setChanges(QHash<NodeId, Change>(changes_));
  setMarks(QHash<NodeId, Mark>(marks_));
}

void GraphScene::setDetailVisible(bool visible) {
  // The items stay visible: switching 50,000 of them cost 25 ms at each crossing of the
  // threshold. The canvas skips them in the overview, and they paint nothing there.
  detailVisible_ = visible;
  update();
}

void GraphScene::setHeat(const QHash<NodeId, double>& selfMs, bool signedDelta, bool groupsTakeMax) {
  heat_ = selfMs;
  signedHeat_ = signedDelta;
  heatGroupsTakeMax_ = groupsTakeMax;
  groupHeat_.clear();
  heatMax_ = 0;
  for (double v : heat_) heatMax_ = std::max(heatMax_, std::abs(v));
  for (auto it = heat_.begin(); it != heat_.end(); ++it)
    forEachGroupAbove(it.key(), [&](int g) {
      double& held = groupHeat_[g];
      held = groupsTakeMax ? std::max(held, it.value()) : held + it.value();
    });
  update();
}

void GraphScene::setChanges(const QHash<NodeId, Change>& changes) {
  changes_ = changes;
  changedGroups_.clear();
  for (auto it = changes_.begin(); it != changes_.end(); ++it)
    forEachGroupAbove(it.key(), [&](int g) { changedGroups_.insert(g); });
  update();
}

bool GraphScene::nodeHeat(NodeId id, QColor* colour) const {
  auto it = heat_.constFind(id);
  if (heat_.isEmpty()) return false;
  const double fraction = it == heat_.constEnd() || heatMax_ <= 0 ? 0.0 : *it / heatMax_;
  *colour = signedHeat_ ? deltaColour(fraction) : heatColour(fraction);
  return true;
}

bool GraphScene::groupHeat(int group, QColor* colour) const {
  if (heat_.isEmpty()) return false;
  double max = 0;
  for (double v : groupHeat_) max = std::max(max, std::abs(v));
  const double fraction = max <= 0 ? 0.0 : groupHeat_.value(group) / max;
  *colour = signedHeat_ ? deltaColour(fraction) : heatColour(fraction);
  return true;
}

void GraphScene::setMarks(const QHash<NodeId, Mark>& marks) {
  marks_ = marks;
  groupMarks_.clear();
  for (auto it = marks_.begin(); it != marks_.end(); ++it)
    forEachGroupAbove(it.key(), [&](int g) {
      // The highest rank; among equals the lowest id, whatever order the hash gives.
      auto held = groupMarks_.constFind(g);
      if (held == groupMarks_.constEnd() || marks_[*held].rank < it->rank ||
          (marks_[*held].rank == it->rank && it.key() < *held))
        groupMarks_[g] = it.key();
    });
  update();
}

const GraphScene::Mark* GraphScene::markOf(NodeId id) const {
  auto it = marks_.constFind(id);
  return it == marks_.constEnd() ? nullptr : &*it;
}

const GraphScene::Mark* GraphScene::groupMark(int group) const {
  auto it = groupMarks_.constFind(group);
  return it == groupMarks_.constEnd() ? nullptr : markOf(*it);
}

void GraphScene::setPicked(const QSet<NodeId>& picked) {
  picked_ = picked;
  update();
}

void GraphScene::setSelectedNode(NodeId id) {
  auto* oldItem = itemShowing(selected_);
  if (auto* g = dynamic_cast<GroupItem*>(oldItem)) g->setHighlighted(false);
  selected_ = id;
  auto* item = itemShowing(id);
  if (auto* g = dynamic_cast<GroupItem*>(item)) g->setHighlighted(true);
  update();  // node boxes and the edges touching the selection repaint
}

void GraphScene::setHoveredStub(int route) {
  if (route == hoveredStub_) return;
  hoveredStub_ = route >= 0 && route < diagram_.edges.size() && diagram_.edges[route].stub ? route : -1;
  stubSource_ = hoveredStub_ < 0 || !view_ ? NodeId(core::model::kNoNode)
                                           : view_->edges[diagram_.edges[hoveredStub_].edge].from;
  update();
}

bool GraphScene::routeOfHoveredValue(int route) const {
  if (hoveredStub_ < 0 || !view_ || route < 0 || route >= diagram_.edges.size()) return false;
  const auto& a = view_->edges[diagram_.edges[hoveredStub_].edge];
  const auto& b = view_->edges[diagram_.edges[route].edge];
  return a.from == b.from && a.fromPort == b.fromPort;
}

void GraphScene::stubClicked(int route) {
  if (!view_ || route < 0 || route >= diagram_.edges.size() || diagram_.edges[route].atSource) return;
  const NodeId source = view_->edges[diagram_.edges[route].edge].from;
  if (source != core::model::kNoNode) Q_EMIT nodeActivated(source);
}

QString GraphScene::toolTipAt(QPointF scenePos) const {
  // Tooltips come from the view, not from strings stored in items.
  QString text;
  if (!view_) return text;
  for (QGraphicsItem* item : items(scenePos, Qt::IntersectsItemShape, Qt::DescendingOrder)) {
    if (auto* e = dynamic_cast<EdgeItem*>(item)) {
      const auto& de = diagram_.edges[e->route()];
      const auto& ve = view_->edges[de.edge];
      text = QStringLiteral("%%1 : %2").arg(ve.value, ve.type.isEmpty() ? tr("(type unknown)") : ve.type);
      if (const QString ranges = core::model::symbolRangesIn(ve.type, view_->symbolRanges); !ranges.isEmpty())
        text += QLatin1Char('\n') + ranges;
      if (de.count > 1) text += tr("\n(+%1 more edges on this route)").arg(de.count - 1);
      if (de.stub && !de.atSource) text += tr("\n%1: click to go there").arg(de.note);
      else if (de.stub) text += tr("\n%1 (their stubs name this node)").arg(de.note);
      break;
    }
    if (auto* n = dynamic_cast<NodeItem*>(item)) {
      const auto* vn = view_->node(n->id());
      text = vn->kind + (vn->modulePath.isEmpty() ? QString() : QStringLiteral("\n") + vn->modulePath);
      for (const auto& o : vn->outputs) text += QStringLiteral("\n→ %1").arg(o.type);
      QStringList types;
      for (const auto& o : vn->outputs) types << o.type;
      if (const QString ranges = core::model::symbolRangesIn(types.join(QLatin1Char(' ')), view_->symbolRanges);
          !ranges.isEmpty())
        text += QLatin1Char('\n') + ranges;
      if (const Mark* m = markOf(n->id()); m && !m->note.isEmpty()) text += QStringLiteral("\n") + m->note;
      if (const QString extra = noteOf(n->id()); !extra.isEmpty()) text += QStringLiteral("\n") + extra;
      break;
    }
    if (auto* t = dynamic_cast<TerminalItem*>(item)) {
      const auto& dt = diagram_.terminals[t->terminal()];
      const auto& ports = dt.input ? view_->graphInputs : view_->graphOutputs;
      if (dt.port < ports.size())
        text = (dt.input ? tr("graph input %1 : %2") : tr("graph output %1 : %2"))
                   .arg(!ports[dt.port].path.isEmpty() ? ports[dt.port].path
                        : dt.input                      ? ports[dt.port].name
                                                        : QString::number(dt.port),
                        ports[dt.port].type);
      break;
    }
    if (auto* g = dynamic_cast<GroupItem*>(item)) {
      const auto& vg = view_->groups[g->group()];
      text = QStringLiteral("%1 (%2) · %3 ops")
                 .arg(vg.path.isEmpty() ? tr("model") : vg.path, vg.typeName)
                 .arg(vg.totalNodes);
      if (const Mark* m = g->expanded() ? nullptr : groupMark(g->group()); m && !m->note.isEmpty())
        text += tr("\ninside: ") + m->note;
      break;
    }
  }
  return text;
}

void GraphScene::drawForeground(QPainter* painter, const QRectF& exposed) {
  if (!detailVisible_ || marks_.isEmpty()) return;
  struct Ring {
    QRectF box;
    const Mark* mark;
    bool group;
  };
  QVector<Ring> rings;
  const auto reaches = [&exposed](const QRectF& box) {
    return box.adjusted(-kOutline, -kOutline, kOutline, kOutline).intersects(exposed);
  };
  for (auto it = marks_.begin(); it != marks_.end(); ++it)
    if (auto* n = nodeItem(it.key()); n && n->isVisible())
      if (const QRectF box = n->mapRectToScene(n->rect()); reaches(box)) rings.push_back({box, &*it, false});
  for (const auto& [group, item] : groups_)
    if (const Mark* m = item->expanded() || !item->isVisible() ? nullptr : groupMark(group))
      if (const QRectF box = item->mapRectToScene(item->rect()); reaches(box)) rings.push_back({box, m, true});
  std::stable_sort(rings.begin(), rings.end(), [](const Ring& a, const Ring& b) {
    return a.mark->rank != b.mark->rank
               ? a.mark->rank < b.mark->rank
               : a.box.top() < b.box.top() || (a.box.top() == b.box.top() && a.box.left() < b.box.left());
  });
  painter->save();
  painter->setRenderHint(QPainter::Antialiasing);
  for (const auto& r : rings) paintMarkRing(*painter, r.box, r.mark->colour, r.group);
  painter->restore();
}

void GraphScene::helpEvent(QGraphicsSceneHelpEvent* event) {
  const QString text = toolTipAt(event->scenePos());
  if (text.isEmpty()) QToolTip::hideText();
  else QToolTip::showText(event->screenPos(), text);
  event->accept();
}

}  // namespace graft::ui::canvas
