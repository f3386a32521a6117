#include "ui/comparison_marks.h"

#include "core/model/graph_view.h"
#include "ui/canvas/mark_layers.h"
#include "ui/compare_dock.h"

namespace graft::ui {

ComparisonMarks::ComparisonMarks(CompareDock* compare, canvas::MarkLayers* marks,
                                 std::function<const core::model::GraphView*()> view, QObject* parent)
    : QObject(parent), compare_(compare), marks_(marks), view_(std::move(view)) {
  connect(compare_, &CompareDock::finished, this, [this] { show(true); });
  connect(compare_, &CompareDock::overlayToggled, this, [this] { show(false); });
  connect(compare_, &CompareDock::reduceFinished, this, [this] {
    const auto& r = compare_->reduceSummary();
    if (!r.ok) return;
    marks_->add(canvas::MarkLayers::Comparison, canvas::reduceMarks(r));
    if (const auto* v = view_(); v && v->node(r.failing)) Q_EMIT revealRequested(r.failing);
  });
}

void ComparisonMarks::show(bool reveal) {
  core::model::NodeId target = core::model::kNoNode;
  marks_->set(canvas::MarkLayers::Comparison, compare_->overlayEnabled() ? canvas::comparisonMarks(compare_->summary(), &target)
                                                                         : canvas::MarkLayers::Marks{});
  if (const auto* v = view_(); reveal && target != core::model::kNoNode && v && v->node(target)) Q_EMIT revealRequested(target);
}

}  // namespace graft::ui
