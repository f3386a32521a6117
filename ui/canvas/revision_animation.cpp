#include "ui/canvas/revision_animation.h"

#include "ui/render/diagram_painter.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"

#include <QtCore/QEasingCurve>
#include <QtGui/QPainter>
#include <QtWidgets/QStyleOptionGraphicsItem>

namespace graft::ui::canvas {

namespace {

// What leaves: the removed nodes and the old edge routes, painted by one item with one opacity.
class GhostItem : public QGraphicsItem {
 public:
  GhostItem(const core::layout::Diagram& before, std::vector<core::layout::DiagramNode> removed,
            std::shared_ptr<const core::model::GraphView> view)
      : removed_(std::move(removed)), view_(std::move(view)) {
    setZValue(1.5);
    setAcceptedMouseButtons(Qt::NoButton);
    for (const auto& e : before.edges) {
      QPainterPath path = edgePath(e);
      const QRectF rect = path.boundingRect();
      edges_.push_back({e, std::move(path), rect});
      bounds_ |= rect;
    }
    for (const auto& n : removed_) bounds_ |= n.rect.adjusted(-kOutline, -kOutline, kOutline, kOutline);
  }
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override {
    const double lod = option->levelOfDetailFromTransform(p->worldTransform());
    for (const auto& e : edges_)
      if (e.rect.intersects(option->exposedRect)) paintEdge(*p, e.edge, e.path, false, lod);
    for (const auto& n : removed_)
      if (const auto* vn = view_->node(n.id)) paintNode(*p, n.rect, *vn, false, lod);
  }

 private:
  struct Route {
    core::layout::DiagramEdge edge;
    QPainterPath path;
    QRectF rect;  // the path's bounds, computed once
  };
  std::vector<core::layout::DiagramNode> removed_;
  std::shared_ptr<const core::model::GraphView> view_;
  std::vector<Route> edges_;
  QRectF bounds_;
};

}  // namespace

RevisionAnimation::RevisionAnimation(GraphScene* scene, const core::layout::Diagram& before,
                                     std::shared_ptr<const core::model::GraphView> beforeView, QObject* parent)
    : QObject(parent), scene_(scene), beforeView_(std::move(beforeView)) {
  QHash<core::model::NodeId, QRectF> old;
  for (const auto& n : before.nodes) old.insert(n.id, n.rect);
  QSet<core::model::NodeId> present;
  for (const auto& n : scene_->diagram().nodes) {
    present.insert(n.id);
    auto* item = scene_->nodeItem(n.id);
    if (!item) continue;
    if (auto it = old.constFind(n.id); it != old.constEnd()) kept_.push_back({item, it->center() - n.rect.center()});
    else added_.push_back(item);
  }
  for (const auto& n : before.nodes)
    if (!present.contains(n.id)) removed_.push_back(n);
  for (auto* item : scene_->items())
    if (!dynamic_cast<NodeItem*>(item)) fading_.push_back(item);
  ghost_ = new GhostItem(before, removed_, beforeView_);
  scene_->addItem(ghost_);
  animation_.setDuration(kDurationMs);
  animation_.setStartValue(0.0);
  animation_.setEndValue(1.0);
  connect(&animation_, &QVariantAnimation::valueChanged, this,
          [this](const QVariant& v) { setProgress(v.toDouble()); });
  connect(&animation_, &QVariantAnimation::finished, this, &RevisionAnimation::finish);
  setProgress(0);
}

RevisionAnimation::~RevisionAnimation() { finish(); }

void RevisionAnimation::setProgress(double t) {
  if (done_) return;
  static const QEasingCurve ease(QEasingCurve::InOutCubic);
  const double e = ease.valueForProgress(std::clamp(t, 0.0, 1.0));
  for (const auto& k : kept_) k.item->setPos(k.from * (1 - e));
  // A cross-fade: the old edges and removed nodes fade out while the new edges, frames and added
  // nodes fade in, so half-way both pictures show faintly.
  for (auto* item : added_) item->setOpacity(e);
  for (auto* item : fading_) item->setOpacity(e);
  ghost_->setOpacity(1 - e);
}

void RevisionAnimation::start() { animation_.start(); }

void RevisionAnimation::finish() {
  if (done_) return;
  animation_.stop();
  setProgress(1);
  done_ = true;
  scene_->removeItem(ghost_);
  delete ghost_;
  ghost_ = nullptr;
  Q_EMIT finished();
}

}  // namespace graft::ui::canvas
