#include "ui/canvas/mark_layers.h"

#include "core/edit/graph_diff.h"
#include "core/model/document.h"
#include "core/run/culprit.h"

#include <QtCore/QCoreApplication>
#include <cmath>

namespace graft::ui::canvas {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("MarkLayers", text); }
}  // namespace

void MarkLayers::set(Layer layer, Marks marks) {
  layers_[layer] = {std::move(marks), {}, std::nullopt};
  show();
}

void MarkLayers::set(Layer layer, Marks marks, Belongs belongs, std::optional<GraphScene::Mark> rest) {
  layers_[layer] = {std::move(marks), std::move(belongs), std::move(rest)};
  show();
}

void MarkLayers::add(Layer layer, const Marks& marks) {
  for (auto it = marks.begin(); it != marks.end(); ++it) layers_[layer].marks[it.key()] = *it;
  show();
}

void MarkLayers::clearAll() {
  for (auto& layer : layers_) layer = {};
}

bool MarkLayers::shown(Layer layer) const { return !layers_[layer].belongs || layers_[layer].belongs(); }

void MarkLayers::show() const {
  Marks merged;
  const auto offer = [&merged](core::model::NodeId id, const GraphScene::Mark& mark) {
    auto held = merged.find(id);
    if (held == merged.end()) merged.insert(id, mark);
    else if (held->rank < mark.rank) *held = mark;
  };
  const auto* view = scene_->view();
  for (int l = 0; l < kLayers; ++l) {
    if (!shown(Layer(l))) continue;  // computed on another revision than the one shown
    const auto& layer = layers_[l];
    for (auto it = layer.marks.begin(); it != layer.marks.end(); ++it) offer(it.key(), *it);
    if (layer.rest && view)
      for (const auto& n : view->nodes)
        if (!layer.marks.contains(n.id)) offer(n.id, *layer.rest);
  }
  scene_->setMarks(merged);
}

MarkLayers::Marks matchMarks(const QVector<core::rewrite::MatchSite>& sites, int current) {
  MarkLayers::Marks marks;
  for (int i = 0; i < sites.size(); ++i) {
    const bool shown = i == current;
    const QString note = tr("rule match %1 of %2").arg(i + 1).arg(sites.size());
    for (auto id : sites[i].nodes)
      marks[id] = {shown ? QColor(0x8e, 0x24, 0xaa) : QColor(0xf0, 0x8c, 0x00), note, shown ? 2 : 1};
  }
  return marks;
}

QColor notComparedColour() { return QColor(0x9e, 0x9e, 0x9e); }

MarkLayers::Marks comparisonMarks(const core::run::CompareSummary& s, core::model::NodeId* target) {
  MarkLayers::Marks marks;
  core::model::NodeId first = core::model::kNoNode;
  // Skipped first: a row of the same node (a change's exit) says more.
  for (const auto& k : s.skipped) {
    if (k.node == core::model::kNoNode) continue;
    const QString why = k.change ? tr("not compared: inside a change (its values are compared where they leave it)")
                        : k.reason == QLatin1String("uninitialised memory")
                            ? tr("not compared: never written (%1)").arg(k.op)
                            : tr("not compared: %1").arg(k.reason);
    marks[k.node] = {notComparedColour(), why, kNotComparedRank};
  }
  for (auto id : s.insideChanges)
    if (!marks.contains(id))
      marks[id] = {notComparedColour(),
                   tr("not compared: inside a change (its values are compared where they leave it)"), kNotComparedRank};
  for (const auto& r : s.nodes) {
    if (r.node == core::model::kNoNode) continue;
    // A node with several rows (run more than once, or a change's exit with several outputs) is
    // red when any of them is: the canvas never shows green where the table has a red row.
    if (auto held = marks.constFind(r.node); held != marks.constEnd() && held->rank > 0 && r.pass) continue;
    if (r.pass)
      marks[r.node] = {QColor(0x2e, 0x7d, 0x32), tr("same as A within tolerance (max abs %1)").arg(r.maxAbs, 0, 'g', 3),
                       0};
    else
      marks[r.node] = {QColor(0xe5, 0x39, 0x35),
                       tr("differs from A: max abs %1, %2 of %3 elements beyond tolerance")
                           .arg(r.maxAbs, 0, 'g', 3)
                           .arg(r.mismatched)
                           .arg(r.numel),
                       3};
  }
  if (s.firstDivergence && s.firstDivergence->node != core::model::kNoNode) {
    first = s.firstDivergence->node;
    marks[first] = {QColor(0x8b, 0, 0), tr("FIRST DIVERGENCE: max abs %1").arg(s.firstDivergence->maxAbs, 0, 'g', 3),
                    5};
  }
  if (s.intermediateDivergence && s.intermediateDivergence->node != core::model::kNoNode) {
    first = s.intermediateDivergence->node;
    marks[first] = {QColor(0xef, 0x6c, 0x00),
                    tr("outputs equal, but this intermediate is beyond tolerance: max abs %1")
                        .arg(s.intermediateDivergence->maxAbs, 0, 'g', 3),
                    5};
  }
  if (s.culprit && s.culprit->node != core::model::kNoNode) {
    first = s.culprit->node;
    marks[first] = {QColor(0x6a, 0x1b, 0x9a),
                    std::isfinite(s.culprit->localScaled)
                        ? tr("CULPRIT: run on A's inputs at %1, this node alone is off by %2")
                              .arg(s.precisionB, core::run::shareOfScale(s.culprit->localScaled))
                        : tr("CULPRIT: run on A's inputs at %1, this node alone overflows").arg(s.precisionB),
                    6};
  }
  if (!s.ok && s.errorNode != core::model::kNoNode) {
    first = s.errorNode;
    marks[first] = {QColor(0x8b, 0, 0),
                    tr("run %1 failed here").arg(s.errorOnB ? QStringLiteral("B") : QStringLiteral("A")), 6};
  }
  if (target) *target = first;
  return marks;
}

std::optional<GraphScene::Mark> notComparedMark(const core::run::CompareSummary& s) {
  if (!s.ok || (s.nodes.isEmpty() && s.skipped.isEmpty())) return std::nullopt;  // outputs only
  return GraphScene::Mark{notComparedColour(), tr("not compared: no value of it was recorded on both sides"),
                          kNotComparedRank};
}

MarkLayers::Marks reduceMarks(const core::jobs::ReduceSummary& reduce) {
  MarkLayers::Marks marks;
  if (!reduce.ok) return marks;
  for (auto id : reduce.nodes)
    marks[id] = {QColor(0x00, 0x83, 0x8f),
                 tr("in the smallest subgraph that still fails on A's values at its boundary"), 4};
  return marks;
}

QHash<core::model::NodeId, GraphScene::Change> revisionChanges(const core::model::Document& document, int index) {
  QHash<core::model::NodeId, GraphScene::Change> changes;
  if (const int parent = document.parentOf(index); parent >= 0) {
    const auto d = core::edit::diffGraphs(*document.revision(parent), *document.revision(index),
                                          core::edit::DiffMatching::ByProvenance);
    for (const auto& c : d.changed) changes.insert(c.node, GraphScene::Change::Modified);
    for (const auto& a : d.added) changes.insert(a.node, GraphScene::Change::Added);
  }
  return changes;
}

}  // namespace graft::ui::canvas
