#pragma once
// The last comparison on the canvas (Compare dock → mark layers): its compared nodes outlined,
// the nodes it left out grey, its first divergence or failing node asked to be revealed, and a
// reduce's failing node marked. The marks belong to revision B of the comparison: they show
// while the canvas shows that revision and go while it shows another.
#include "core/model/ids.h"

#include <QtCore/QObject>
#include <functional>
#include <memory>

namespace graft::core::model {
struct GraphView;
class Revision;
}  // namespace graft::core::model

namespace graft::ui {

class CompareDock;
namespace canvas { class MarkLayers; }

class ComparisonMarks : public QObject {
  Q_OBJECT
 public:
  // `view` gives what the canvas shows now (nodes of another revision are not revealed).
  ComparisonMarks(CompareDock* compare, canvas::MarkLayers* marks, std::function<const core::model::GraphView*()> view,
                  QObject* parent);

 Q_SIGNALS:
  void revealRequested(core::model::NodeId id);

 private:
  // Outlines the last comparison's nodes; `reveal` asks to show its first divergence.
  void show(bool reveal);
  // Whether the document shows revision B of the last comparison now.
  bool showsComparedRevision() const;
  CompareDock* compare_;
  canvas::MarkLayers* marks_;
  std::function<const core::model::GraphView*()> view_;
  std::weak_ptr<const core::model::Revision> revisionB_;  // not kept alive by its marks
};

}  // namespace graft::ui
