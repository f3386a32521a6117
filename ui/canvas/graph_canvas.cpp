#include "ui/canvas/graph_canvas.h"

#include "ui/canvas/revision_animation.h"

#include "ui/canvas/heat_legend.h"

#include "core/model/repeats.h"

#include "ui/render/diagram_painter.h"
#include "core/layout/layout_service.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"

#include <QtGui/QKeyEvent>
#include <QtGui/QMouseEvent>
#include <QtGui/QPainter>
#include <QtGui/QWheelEvent>
#include <QtWidgets/QScrollBar>
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace graft::ui::canvas {

using core::model::NodeId;

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent) {
  setObjectName(QStringLiteral("graphCanvas"));
  scene_ = new GraphScene(this);
  setScene(scene_);
  service_ = new core::layout::LayoutService(this);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setOptimizationFlags(QGraphicsView::DontSavePainterState);
  setBackgroundBrush(Qt::white);
  // drawBackground fills every pixel: the widget's own fill under it would be a second one.
  viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
  connect(scene_, &GraphScene::groupToggled, this, &GraphCanvas::toggleGroup);
  connect(scene_, &GraphScene::nodeActivated, this, &GraphCanvas::nodeActivated);
  connect(scene_, &GraphScene::nodePicked, this, &GraphCanvas::nodePicked);
  connect(service_, &core::layout::LayoutService::finished, this, &GraphCanvas::onLayout);
  connect(service_, &core::layout::LayoutService::progress, this,
          [this](int, int done, int total) { Q_EMIT layoutProgress(done, total); });
}

GraphCanvas::~GraphCanvas() = default;

const core::layout::Diagram& GraphCanvas::diagram() const { return scene_->diagram(); }

void GraphCanvas::setView(std::shared_ptr<const core::model::GraphView> view, bool keepExpansion) {
  QSet<QString> openPaths;
  if (keepExpansion && view_)
    for (int g : std::as_const(expanded_)) openPaths.insert(view_->groups.value(g).path);
  if (animation_) animation_->finish();
  animation_.reset();
  previousView_.reset();
  previousDiagram_ = {};
  if (animate_ && keepExpansion && view_) {
    previousView_ = view_;
    previousDiagram_ = scene_->diagram();
  }
  view_ = std::move(view);
  scene_->setView(view_.get());
  service_->setView(view_);
  expanded_ = {0};
  if (view_)
    for (const auto& g : view_->groups)
      if (openPaths.contains(g.path)) expanded_.insert(g.index);
  if (!keepExpansion) unfolded_.clear();
  computeFolds();
  fitNext_ = !keepExpansion;
  keep_ = Keep::Nothing;
  relayout();
}

void GraphCanvas::clear() {
  cancelLayout();  // a layout still on its way is dropped (pending_ is 0)
  if (animation_) animation_->finish();
  animation_.reset();
  previousView_.reset();
  previousDiagram_ = {};
  view_.reset();
  scene_->setHeat({});
  scene_->setView(nullptr);
  expanded_ = {0};
  shown_ = {0};
  folds_.clear();
  unfolded_.clear();
  placeHeatLegend();
  viewport()->update();
  Q_EMIT viewportMoved();
}

void GraphCanvas::cancelLayout() {
  if (!pending_) return;
  service_->cancel();
  pending_ = 0;
  keep_ = Keep::Nothing;
  expanded_ = shown_;
}

void GraphCanvas::relayout() {
  if (!view_) return;
  // Opening a module of a folded repeat unfolds that repeat.
  for (int g : std::as_const(expanded_))
    if (folds_.contains(g) || folds_.values().contains(g)) dropFold(g);
  pending_ = service_->request(expanded_, folds_);
}

void GraphCanvas::onLayout(int request, const core::layout::Diagram& diagram) {
  if (request != pending_) return;
  pending_ = 0;
  shown_ = expanded_;
  if (animation_) animation_->finish();
  animation_.reset();
  scene_->setDiagram(diagram);
  if (previousView_) {
    animation_ = std::make_unique<RevisionAnimation>(scene_, previousDiagram_, std::move(previousView_));
    previousDiagram_ = {};
    animation_->start();
  }
  if (fitNext_) {
    fitNext_ = false;
    keep_ = Keep::Nothing;
    fitToWindow();
  }
  restoreView();
  if (centreOn_ != core::model::kNoNode) {
    if (auto* item = scene_->itemShowing(centreOn_)) {
      if (zoom() < kTextLod) {  // found to be read: at 1:1, not as a speck in the overview
        resetTransform();
        Q_EMIT viewportMoved();
      }
      centerOn(item);
    }
    centreOn_ = core::model::kNoNode;
  }
  Q_EMIT layoutFinished();
}

void GraphCanvas::setAnimateRevisions(bool on) {
  animate_ = on;
  if (!on && animation_) animation_->finish();
}

void GraphCanvas::setExpansion(const core::layout::Expansion& expanded) {
  auto wanted = expanded;
  wanted.insert(0);
  const bool changed = wanted != expanded_;
  expanded_ = wanted;
  keep_ = Keep::Nothing;
  relayout();
  if (changed) Q_EMIT expansionChanged();
}

void GraphCanvas::setFoldRepeats(bool fold) {
  if (fold == foldRepeats_) return;
  foldRepeats_ = fold;
  if (view_) setView(view_, true);
}

void GraphCanvas::computeFolds() {
  folds_.clear();
  if (view_ && foldRepeats_)
    for (const auto& r : core::model::findRepeats(*view_))
      if (!unfolded_.contains(view_->groups[r.groups.front()].path))
        for (int i = 1; i < r.groups.size(); ++i) folds_.insert(r.groups[i], r.groups.front());
  scene_->setFolds(folds_);
}

bool GraphCanvas::dropFold(int group) {
  const int first = folds_.value(group, group);
  bool changed = false;
  for (auto it = folds_.begin(); it != folds_.end();)
    if (it.value() == first) {
      it = folds_.erase(it);
      changed = true;
    } else {
      ++it;
    }
  if (changed) {
    unfolded_.insert(view_->groups[first].path);
    scene_->setFolds(folds_);
  }
  return changed;
}

void GraphCanvas::unfoldRepeatOf(int group) {
  if (!dropFold(group)) return;
  keepInView(Keep::Group, group);
  relayout();
  Q_EMIT expansionChanged();
}

void GraphCanvas::toggleGroup(int group) {
  if (group == 0) return;  // the model itself stays open
  // A folded repeat's +: its modules are listed, each collapsed.
  if (auto* item = scene_->groupItem(group); item && !item->label().isEmpty()) return unfoldRepeatOf(group);
  if (!expanded_.remove(group)) expanded_.insert(group);
  keepInView(Keep::Group, group);
  relayout();
  Q_EMIT expansionChanged();
}

void GraphCanvas::expandAll() {
  if (!view_) return;
  for (int g = 0; g < view_->groups.size(); ++g) expanded_.insert(g);
  while (!folds_.isEmpty()) dropFold(folds_.cbegin().key());  // everything means every repeated module too
  keepInView(Keep::View);
  relayout();
  Q_EMIT expansionChanged();
}

void GraphCanvas::collapseAll() {
  expanded_ = {0};
  unfolded_.clear();
  computeFolds();
  keepInView(Keep::View);
  relayout();
  Q_EMIT expansionChanged();
}

void GraphCanvas::revealNode(NodeId id) {
  const auto* n = view_ ? view_->node(id) : nullptr;
  if (!n) return;
  bool changed = false;
  for (int g = n->group; g > 0; g = view_->groups[g].parent) {
    if (folds_.contains(g) || folds_.values().contains(g)) changed = dropFold(g) || changed;
    if (!expanded_.contains(g)) {
      expanded_.insert(g);
      changed = true;
    }
  }
  if (changed) {
    centreOn_ = id;
    relayout();
    Q_EMIT expansionChanged();
  } else if (auto* item = scene_->nodeItem(id)) {
    if (zoom() < kTextLod) resetTransform();
    centerOn(item);
    Q_EMIT viewportMoved();
  }
}

void GraphCanvas::selectNode(NodeId id) {
  scene_->setSelectedNode(id);
  if (auto* item = scene_->itemShowing(id)) ensureVisible(item, 80, 80);
}

void GraphCanvas::zoomBy(double factor) {
  const double now = zoom();
  if (now <= 0 || factor <= 0 || factor == 1) return;
  // A step past a limit stops at it; one that moves away from a limit is always taken, even
  // from outside the limits (a window made larger after a fit).
  const double target = factor > 1 ? std::min(now * factor, kMaxZoom) : std::max(now * factor, minZoom());
  if (factor > 1 ? target <= now : target >= now) return;
  scale(target / now, target / now);
  Q_EMIT viewportMoved();
}

double GraphCanvas::fitZoom() const {
  const QRectF r = scene_->diagram().bounds.adjusted(-20, -20, 20, 20);
  const QRectF room = QRectF(viewport()->rect()).adjusted(2, 2, -2, -2);  // as fitInView leaves
  if (r.isEmpty() || room.isEmpty()) return 1.0;
  return std::min(room.width() / r.width(), room.height() / r.height());
}

double GraphCanvas::minZoom() const { return std::min(kMinZoom, 0.5 * fitZoom()); }

void GraphCanvas::keepInView(Keep keep, int group) {
  keep_ = keep;
  keepNode_ = core::model::kNoNode;
  keepGroup_ = -1;
  if (keep == Keep::Group) {
    if (auto* item = scene_->groupItem(group)) {
      keepGroup_ = group;
      keepAt_ = mapFromScene(item->rect().topLeft());
    } else {
      keep_ = Keep::Nothing;
    }
  } else if (keep == Keep::View) {
    keepNode_ = scene_->selectedNode() != core::model::kNoNode ? scene_->selectedNode() : nodeNearestCentre();
  }
}

void GraphCanvas::restoreView() {
  const Keep keep = std::exchange(keep_, Keep::Nothing);
  if (keep == Keep::Group) {
    // The toggled box stays where it was clicked, its neighbours move around it.
    if (auto* item = scene_->groupItem(keepGroup_)) {
      const QPoint now = mapFromScene(item->rect().topLeft());
      horizontalScrollBar()->setValue(horizontalScrollBar()->value() + now.x() - keepAt_.x());
      verticalScrollBar()->setValue(verticalScrollBar()->value() + now.y() - keepAt_.y());
    }
    return;
  }
  if (keep != Keep::View) return;
  // The whole graph when it fits at the zoom shown (a Collapse All after a fit far out).
  const QRectF bounds = scene_->diagram().bounds.adjusted(-20, -20, 20, 20);
  const QSizeF visible = mapToScene(viewport()->rect()).boundingRect().size();
  if (bounds.width() <= visible.width() && bounds.height() <= visible.height()) return fitToWindow();
  // Else the selected node, or what was nearest the middle, in the box that shows it now.
  const auto id = scene_->selectedNode() != core::model::kNoNode && scene_->itemShowing(scene_->selectedNode())
                      ? scene_->selectedNode()
                      : keepNode_;
  if (auto* item = scene_->itemShowing(id)) return showRect(item->mapRectToScene(item->shape().boundingRect()));
  fitToWindow();
}

core::model::NodeId GraphCanvas::nodeNearestCentre() const {
  if (!view_) return core::model::kNoNode;
  const QPointF centre = mapToScene(viewport()->rect().center());
  const auto distance = [&centre](const QRectF& r) {
    const double dx = std::max({r.left() - centre.x(), 0.0, centre.x() - r.right()});
    const double dy = std::max({r.top() - centre.y(), 0.0, centre.y() - r.bottom()});
    return dx * dx + dy * dy;
  };
  // A node inside group `g` (its own first, else its first child's).
  const auto nodeIn = [this](int g) {
    while (g >= 0 && g < view_->groups.size()) {
      const auto& group = view_->groups[g];
      if (!group.nodes.isEmpty()) return group.nodes.front();
      if (group.children.isEmpty()) break;
      g = group.children.front();
    }
    return core::model::kNoNode;
  };
  core::model::NodeId best = core::model::kNoNode;
  double bestDistance = std::numeric_limits<double>::max();
  const auto offer = [&](core::model::NodeId id, const QRectF& r) {
    if (id == core::model::kNoNode) return;
    if (const double d = distance(r); d < bestDistance) {
      bestDistance = d;
      best = id;
    }
  };
  for (const auto& n : scene_->diagram().nodes) offer(n.id, n.rect);
  for (const auto& g : scene_->diagram().groups)
    if (!g.expanded) offer(nodeIn(g.group), g.rect);
  return best;
}

void GraphCanvas::showRect(const QRectF& rect) {
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  const double margin = 40 / std::max(1e-9, zoom());
  // Per axis: centred when it fits, else its start a margin inside the viewport.
  const double x =
      rect.width() + 2 * margin <= visible.width() ? rect.center().x() : rect.left() - margin + visible.width() / 2;
  const double y =
      rect.height() + 2 * margin <= visible.height() ? rect.center().y() : rect.top() - margin + visible.height() / 2;
  centerOn(QPointF(x, y));
}

void GraphCanvas::fitToWindow() {
  if (scene_->diagram().bounds.isEmpty()) return;
  fitInView(scene_->diagram().bounds.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
  if (zoom() > maxFitZoom_) {  // a small graph is shown at 1:1 (presenting: the larger font's scale), not blown up
    setTransform(QTransform::fromScale(maxFitZoom_, maxFitZoom_));
    centerOn(scene_->diagram().bounds.center());
  }
  Q_EMIT viewportMoved();
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return QGraphicsView::wheelEvent(event);
  zoomBy(std::pow(1.2, steps));
  event->accept();
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
  pressPos_ = event->pos();
  QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  if (scene_->detailVisible() || event->button() != Qt::LeftButton || (event->pos() - pressPos_).manhattanLength() > 4)
    return;
  const QPointF at = mapToScene(event->pos());
  for (const auto& n : scene_->diagram().nodes)
    if (n.rect.contains(at)) {
      Q_EMIT nodeActivated(n.id);
      return;
    }
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
  if (scene_->detailVisible()) return QGraphicsView::mouseDoubleClickEvent(event);
  const QPointF at = mapToScene(event->pos());
  resetTransform();
  centerOn(at);
  Q_EMIT viewportMoved();
  event->accept();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_F && event->modifiers() == Qt::NoModifier) return fitToWindow();
  if (event->key() == Qt::Key_Escape && pending_) return cancelLayout();
  if (event->matches(QKeySequence::ZoomIn) ||
      (event->key() == Qt::Key_Equal && event->modifiers() & Qt::ControlModifier))
    return zoomBy(1.25);
  if (event->matches(QKeySequence::ZoomOut)) return zoomBy(0.8);
  QGraphicsView::keyPressEvent(event);
}

void GraphCanvas::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  Q_EMIT viewportMoved();
}

void GraphCanvas::updateDetailMode() {
  const bool detail = zoom() >= kOverviewZoom;
  if (detail == scene_->detailVisible()) return;
  scene_->setDetailVisible(detail);
  // The overview's items take no clicks or hovers: a click there is the canvas's own (below);
  // dragging still pans.
  setInteractive(detail);
}

void GraphCanvas::paintEvent(QPaintEvent* event) {
  updateDetailMode();
  if (scene_->detailVisible()) return QGraphicsView::paintEvent(event);
  // The overview alone: QGraphicsView would still gather and sort every item in view from its
  // index (50,000 of them fitted) only to find that they paint nothing.
  QPainter p(viewport());
  p.setWorldTransform(viewportTransform());
  drawBackground(&p, mapToScene(event->rect()).boundingRect());
}

void GraphCanvas::drawBackground(QPainter* painter, const QRectF& rect) {
  painter->fillRect(rect, Qt::white);
  // Zoomed far out, tens of thousands of items cost QGraphicsView far more than 16 ms a frame;
  // plain rectangles straight from the diagram cost a few.
  if (!scene_->detailVisible() && scene_->view()) {
    paintDiagramFast(*painter, scene_->diagram(), *scene_->view(), rect);
    // Marks (rule matches, divergence) and the selection stay findable: their boxes filled in
    // their colours, at least a few pixels big, the selection last.
    const double grow = 3 / std::max(1e-9, zoom());
    const auto spot = [&](const QRectF& r, const QColor& c) {
      painter->fillRect(r.adjusted(-grow, -grow, grow, grow), c);
    };
    // Grey "not compared" marks (negative rank) are left out: they would hide the drawing.
    for (const auto& g : scene_->diagram().groups)
      if (const auto* m = g.expanded ? nullptr : scene_->groupMark(g.group); m && m->rank >= 0) spot(g.rect, m->colour);
    const QRectF* selected = nullptr;
    for (const auto& n : scene_->diagram().nodes) {
      if (const auto* m = scene_->markOf(n.id); m && m->rank >= 0) spot(n.rect, m->colour);
      if (n.id == scene_->selectedNode()) selected = &n.rect;
    }
    if (selected) spot(*selected, QColor(0xe0, 0x6c, 0x00));
  }
}

void GraphCanvas::setHeat(const QHash<core::model::NodeId, double>& selfMs, bool signedDelta, bool kernelTime) {
  scene_->setHeat(selfMs, signedDelta);
  if (!heatLegend_) heatLegend_ = new HeatLegend(this);
  heatLegend_->setMaxMs(scene_->heatMaxMs(), signedDelta, kernelTime);
  placeHeatLegend();
  viewport()->update();
}

void GraphCanvas::setErrorHeat(const QHash<core::model::NodeId, double>& error, const QString& title,
                               const QString& low, const QString& high) {
  scene_->setHeat(error, /*signedDelta=*/false, /*groupsTakeMax=*/true);
  if (!heatLegend_) heatLegend_ = new HeatLegend(this);
  heatLegend_->setLabels(title, low, high);
  placeHeatLegend();
  viewport()->update();
}

bool GraphCanvas::heatVisible() const { return scene_->heatVisible(); }

QWidget* GraphCanvas::heatLegend() const { return heatLegend_; }

void GraphCanvas::placeHeatLegend() {
  const bool shown = heatLegend_ && scene_->heatVisible();
  if (heatLegend_) {
    heatLegend_->setVisible(shown);
    // As wide as its title needs (never cut), as far as the canvas allows.
    heatLegend_->resize(QSize(std::min(heatLegend_->sizeHint().width(), std::max(160, width() - 16)),
                              heatLegend_->sizeHint().height()));
  }
  // The legend has a strip of its own below the drawing, so it never covers a node.
  const int strip = shown ? heatLegend_->height() + 8 : 0;
  if (viewportMargins().bottom() != strip) setViewportMargins(0, 0, 0, strip);
  if (shown) heatLegend_->move(8, viewport()->geometry().bottom() + 5);
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  placeHeatLegend();
  Q_EMIT viewportMoved();
}

}  // namespace graft::ui::canvas
