#pragma once
// The canvas's mark layers, kept apart from the window that feeds them: a rule's matches, the
// last comparison (and its reduced subgraph), and the running tour step. Each layer is replaced
// or cleared on its own; the scene shows their merge, the higher rank winning on a node.
#include "core/rewrite/apply.h"
#include "core/run/compare_job.h"
#include "core/run/numerics_job.h"
#include "ui/canvas/graph_scene.h"

#include <QtCore/QHash>
#include <array>

namespace graft::ui::canvas {

class MarkLayers {
 public:
  enum Layer { Matches, Comparison, Tour, kLayers };
  using Marks = QHash<core::model::NodeId, GraphScene::Mark>;

  explicit MarkLayers(GraphScene* scene) : scene_(scene) {}
  // Replaces `layer` and shows the merge.
  void set(Layer layer, Marks marks);
  // Adds `marks` to `layer` (a node already marked there takes the new mark) and shows the merge.
  void add(Layer layer, const Marks& marks);
  // Empties `layer`; shown with the next set, add or show.
  void clear(Layer layer) { layers_[layer].clear(); }
  void clearAll();
  const Marks& layer(Layer layer) const { return layers_[layer]; }
  // Pushes the merge to the scene (after a new view: group outlines are per view).
  void show() const;

 private:
  GraphScene* scene_;
  std::array<Marks, kLayers> layers_;
};

// A rule's matches: every match orange, the one stepped to (`current`) purple.
MarkLayers::Marks matchMarks(const QVector<core::rewrite::MatchSite>& sites, int current);
// A comparison's nodes: green within tolerance, red beyond it, grey inside a change, and the
// node to look at first (first divergence, an intermediate beyond tolerance, the culprit, or
// where a run failed) darker, its id in `target` (kNoNode when none).
MarkLayers::Marks comparisonMarks(const core::run::CompareSummary& summary, core::model::NodeId* target);
// The smallest failing subgraph that Reduce found.
MarkLayers::Marks reduceMarks(const core::run::ReduceSummary& reduce);
// What revision `index` of `document` changed relative to its parent (nothing for an original):
// the same differences the History dock lists and the Diff view outlines (core/edit/graph_diff).
QHash<core::model::NodeId, GraphScene::Change> revisionChanges(const core::model::Document& document, int index);

}  // namespace graft::ui::canvas
