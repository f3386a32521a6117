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
  layers_[layer] = std::move(marks);
  show();
}

void MarkLayers::add(Layer layer, const Marks& marks) {
  for (auto it = marks.begin(); it != marks.end(); ++it) layers_[layer][it.key()] = *it;
  show();
}

void MarkLayers::clearAll() {
  for (auto& layer : layers_) layer.clear();
}

void MarkLayers::show() const {
  Marks merged = layers_[Matches];
  for (int l = Matches + 1; l < kLayers; ++l)
    for (auto it = layers_[l].begin(); it != layers_[l].end(); ++it)
      if (!merged.contains(it.key()) || merged[it.key()].rank < it->rank) merged[it.key()] = *it;
  scene_->setMarks(merged);
}

MarkLayers::Marks matchMarks(const QVector<core::rewrite::MatchSite>& sites, int current) {
  MarkLayers::Marks marks;
  for (int i = 0; i < sites.size(); ++i) {
    const bool shown = i == current;
    const QString note = tr("rule match %1 of %2").arg(i + 1).arg(sites.size());
    for (auto id : sites[i].nodes) marks[id] = {shown ? QColor(0x8e, 0x24, 0xaa) : QColor(0xf0, 0x8c, 0x00), note, shown ? 2 : 1};
  }
  return marks;
}

MarkLayers::Marks comparisonMarks(const core::run::CompareSummary& s, core::model::NodeId* target) {
  MarkLayers::Marks marks;
  core::model::NodeId first = core::model::kNoNode;
  for (const auto& r : s.nodes) {
    if (r.node == core::model::kNoNode) continue;
    if (r.pass)
      marks[r.node] = {QColor(0x2e, 0x7d, 0x32), tr("same as A within tolerance (max abs %1)").arg(r.maxAbs, 0, 'g', 3), 0};
    else
      marks[r.node] = {QColor(0xe5, 0x39, 0x35),
                       tr("differs from A: max abs %1, %2 of %3 elements beyond tolerance").arg(r.maxAbs, 0, 'g', 3).arg(r.mismatched).arg(r.numel),
                       3};
  }
  // Nodes inside a change are compared where the change hands its values on, not one by one.
  for (auto id : s.insideChanges)
    if (!marks.contains(id)) marks[id] = {QColor(0x80, 0x80, 0x80), tr("inside a change: compared where its values leave it"), 0};
  if (s.firstDivergence && s.firstDivergence->node != core::model::kNoNode) {
    first = s.firstDivergence->node;
    marks[first] = {QColor(0x8b, 0, 0), tr("FIRST DIVERGENCE: max abs %1").arg(s.firstDivergence->maxAbs, 0, 'g', 3), 5};
  }
  if (s.intermediateDivergence && s.intermediateDivergence->node != core::model::kNoNode) {
    first = s.intermediateDivergence->node;
    marks[first] = {QColor(0xef, 0x6c, 0x00),
                    tr("outputs equal, but this intermediate is beyond tolerance: max abs %1").arg(s.intermediateDivergence->maxAbs, 0, 'g', 3), 5};
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
    marks[first] = {QColor(0x8b, 0, 0), tr("run %1 failed here").arg(s.errorOnB ? QStringLiteral("B") : QStringLiteral("A")), 6};
  }
  if (target) *target = first;
  return marks;
}

MarkLayers::Marks reduceMarks(const core::run::ReduceSummary& reduce) {
  MarkLayers::Marks marks;
  if (!reduce.ok) return marks;
  for (auto id : reduce.nodes)
    marks[id] = {QColor(0x00, 0x83, 0x8f), tr("in the smallest subgraph that still fails on A's values at its boundary"), 4};
  return marks;
}

QHash<core::model::NodeId, GraphScene::Change> revisionChanges(const core::model::Document& document, int index) {
  QHash<core::model::NodeId, GraphScene::Change> changes;
  if (const int parent = document.parentOf(index); parent >= 0) {
    const auto d = core::edit::diffGraphs(*document.revision(parent), *document.revision(index), core::edit::DiffMatching::ByProvenance);
    for (const auto& c : d.changed) changes.insert(c.node, GraphScene::Change::Modified);
    for (const auto& a : d.added) changes.insert(a.node, GraphScene::Change::Added);
  }
  return changes;
}

}  // namespace graft::ui::canvas
