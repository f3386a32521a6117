#include "ui/comparison_marks.h"

#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "ui/canvas/mark_layers.h"
#include "ui/compare_dock.h"

namespace graft::ui {

ComparisonMarks::ComparisonMarks(CompareDock* compare, canvas::MarkLayers* marks,
                                 std::function<const core::model::GraphView*()> view, QObject* parent)
    : QObject(parent), compare_(compare), marks_(marks), view_(std::move(view)) {
  connect(compare_, &CompareDock::finished, this, [this] {
    revisionB_ = compare_->comparedRevisionB();
    show(true);
  });
  connect(compare_, &CompareDock::overlayToggled, this, [this] { show(false); });
  connect(compare_, &CompareDock::reduceFinished, this, [this] {
    const auto& r = compare_->reduceSummary();
    if (!r.ok) return;
    marks_->add(canvas::MarkLayers::Comparison, canvas::reduceMarks(r));
    if (const auto* v = view_(); v && v->node(r.failing) && showsComparedRevision()) Q_EMIT revealRequested(r.failing);
  });
}

bool ComparisonMarks::showsComparedRevision() const {
  const auto* document = compare_->document();
  const auto b = revisionB_.lock();
  return document && b && document->current() == b;
}

void ComparisonMarks::show(bool reveal) {
  core::model::NodeId target = core::model::kNoNode;
  if (!compare_->overlayEnabled()) return marks_->set(canvas::MarkLayers::Comparison, {});
  const auto& summary = compare_->summary();
  marks_->set(
      canvas::MarkLayers::Comparison, canvas::comparisonMarks(summary, &target),
      [this] { return showsComparedRevision(); }, canvas::notComparedMark(summary));
  if (const auto* v = view_();
      reveal && target != core::model::kNoNode && v && v->node(target) && showsComparedRevision())
    Q_EMIT revealRequested(target);
}

}  // namespace graft::ui
