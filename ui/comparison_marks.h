#pragma once
// The last comparison on the canvas (Compare dock → mark layers): its compared nodes outlined,
// its first divergence or failing node asked to be revealed, and a reduce's failing node marked.
#include "core/model/ids.h"

#include <QtCore/QObject>
#include <functional>

namespace graft::core::model { struct GraphView; }

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
  CompareDock* compare_;
  canvas::MarkLayers* marks_;
  std::function<const core::model::GraphView*()> view_;
};

}  // namespace graft::ui
