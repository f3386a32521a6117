#pragma once
// The canvas's mark layers, kept apart from the window that feeds them: a rule's matches, the
// last comparison (and its reduced subgraph), and the running tour step. Each layer is replaced
// or cleared on its own; the scene shows their merge, the higher rank winning on a node.
#include "core/rewrite/apply.h"
#include "core/run/compare_job.h"
#include "core/jobs/numerics_job.h"
#include "ui/canvas/graph_scene.h"

#include <QtCore/QHash>
#include <array>
#include <functional>
#include <optional>

namespace graft::ui::canvas {

class MarkLayers {
 public:
  enum Layer { Matches, Comparison, Tour, kLayers };
  using Marks = QHash<core::model::NodeId, GraphScene::Mark>;
  // Whether a layer belongs to what the canvas shows now (the revision it was computed on).
  using Belongs = std::function<bool()>;

  explicit MarkLayers(GraphScene* scene) : scene_(scene) {}
  // Replaces `layer` and shows the merge.
  void set(Layer layer, Marks marks);
  // Replaces `layer` with marks shown only while `belongs` says the canvas shows their revision;
  // every other node of the view then takes `rest` (a comparison's "not compared").
  void set(Layer layer, Marks marks, Belongs belongs, std::optional<GraphScene::Mark> rest = std::nullopt);
  // Adds `marks` to `layer` (a node already marked there takes the new mark) and shows the merge.
  void add(Layer layer, const Marks& marks);
  // Empties `layer`; shown with the next set, add or show.
  void clear(Layer layer) { layers_[layer] = {}; }
  void clearAll();
  const Marks& layer(Layer layer) const { return layers_[layer].marks; }
  // Whether `layer` is drawn on what the canvas shows now.
  bool shown(Layer layer) const;
  // Pushes the merge to the scene (after a new view: group outlines are per view, and a layer
  // computed on another revision goes, or comes back with its revision).
  void show() const;

 private:
  struct Content {
    Marks marks;
    Belongs belongs;  // empty: on every revision
    std::optional<GraphScene::Mark> rest;
  };
  GraphScene* scene_;
  std::array<Content, kLayers> layers_;
};

// The rank of a node a comparison did not compare: below every verdict and tool mark.
inline constexpr int kNotComparedRank = -1;

// A rule's matches: every match orange, the one stepped to (`current`) purple.
MarkLayers::Marks matchMarks(const QVector<core::rewrite::MatchSite>& sites, int current);
// A comparison's nodes: green within tolerance, red beyond it (a node compared more than once
// is red when any of its values is), grey where it was not compared, saying why ("not compared:
// inside a change", "not compared: never written (aten::empty)"), and the node to look at first
// (first divergence, an intermediate beyond tolerance, the culprit, or where a run failed)
// darker, its id in `target` (kNoNode when none).
MarkLayers::Marks comparisonMarks(const core::run::CompareSummary& summary, core::model::NodeId* target);
// The grey mark of a node of the compared revision that no row, skip or failure speaks of;
// nullopt when the comparison compared no node one by one.
std::optional<GraphScene::Mark> notComparedMark(const core::run::CompareSummary& summary);
// Grey: a node the comparison did not compare.
QColor notComparedColour();
// The smallest failing subgraph that Reduce found.
MarkLayers::Marks reduceMarks(const core::jobs::ReduceSummary& reduce);
// What revision `index` of `document` changed relative to its parent (nothing for an original):
// the same differences the History dock lists and the Diff view outlines (core/edit/graph_diff).
QHash<core::model::NodeId, GraphScene::Change> revisionChanges(const core::model::Document& document, int index);

}  // namespace graft::ui::canvas
