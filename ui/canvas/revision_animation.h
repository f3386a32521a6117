#pragma once
// The animated change between two revisions' diagrams (presentation mode): over ~300 ms kept
// nodes glide from their old place to their new one, removed nodes and old edges fade out, added
// nodes, the new edges and frames fade in. It works on the scene's items after the new diagram
// has been set: kept items are offset back to their old place and brought home while the old
// and the new edges cross-fade.
#include "core/layout/diagram.h"
#include "core/model/graph_view.h"

#include <QtCore/QObject>
#include <QtCore/QVariantAnimation>
#include <memory>

class QGraphicsItem;

namespace graft::ui::canvas {

class GraphScene;

class RevisionAnimation : public QObject {
  Q_OBJECT
 public:
  static constexpr int kDurationMs = 300;

  // `before` and `beforeView` are what the scene showed before its new diagram.
  RevisionAnimation(GraphScene* scene, const core::layout::Diagram& before,
                    std::shared_ptr<const core::model::GraphView> beforeView, QObject* parent = nullptr);
  ~RevisionAnimation() override;

  // Puts every item where it is at `t` in [0, 1] (eased). 1 is the final picture.
  void setProgress(double t);
  void start();
  // Jumps to the end and removes the ghosts (before the scene is cleared).
  void finish();
  int keptCount() const { return int(kept_.size()); }
  int addedCount() const { return int(added_.size()); }
  int removedCount() const { return int(removed_.size()); }

 Q_SIGNALS:
  void finished();

 private:
  struct Kept {
    QGraphicsItem* item;
    QPointF from;  // offset from the new place to the old one
  };
  GraphScene* scene_;
  std::shared_ptr<const core::model::GraphView> beforeView_;
  std::vector<Kept> kept_;
  std::vector<QGraphicsItem*> added_, fading_;  // fading_: edges, frames, terminals of the new diagram
  std::vector<core::layout::DiagramNode> removed_;
  QGraphicsItem* ghost_ = nullptr;  // paints removed nodes and the old edges
  QVariantAnimation animation_;
  bool done_ = false;
};

}  // namespace graft::ui::canvas
