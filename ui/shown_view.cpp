#include "ui/shown_view.h"

#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "core/model/plural.h"
#include "core/run/observed_types.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/mark_layers.h"
#include "ui/canvas/minimap.h"
#include "ui/compare_dock.h"
#include "ui/document/document_controller.h"
#include "ui/document/off_thread.h"
#include "ui/document/shown_revision.h"
#include "ui/find_bar.h"
#include "ui/heatmap_actions.h"
#include "ui/inspector.h"
#include "ui/ir_view.h"
#include "ui/main_docks.h"
#include "ui/module_tree.h"
#include "ui/selection.h"

#include <QtCore/QScopeGuard>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QStatusBar>

namespace graft::ui {

ShownView::ShownView(const Workbench& parts, QObject* parent) : QObject(parent), parts_(parts) {}

void ShownView::refresh() {
  const auto* doc = parts_.controller->document();
  if (!doc) return;
  const auto& docks = *parts_.docks;
  const auto rev = doc->current();
  const int generation = ++generation_;
  ++building_;
  const auto building = qScopeGuard([this] { --building_; });
  // Where the graph records no shapes, one run finds them first (once per revision, when the
  // inputs are known), so the view is laid out once, with them.
  const auto built = runOffGuiThread([doc, rev, inputs = docks.compare->inputSpec()] {
    findShapes(*doc, rev, inputs);
    return buildShownRevision(*doc, rev);
  });
  if (generation != generation_ || parts_.controller->document() != doc || doc->current() != rev)
    return;  // a newer one is shown
  view_ = built->view;
  // A program's IR is its fx graph, as print(ep.graph) prints it; a TorchScript model's is its IR.
  if (built->program) docks.ir->setListing(built->fx.graph.text, built->fx.graph.lineOf);
  else docks.ir->setRevisionText(built->ir, view_.get());
  docks.code->setListing(built->fx.code.text, built->fx.code.lineOf);
  docks.modules->setView(view_.get());
  parts_.findBar->setView(view_.get());
  // A new revision of the same document keeps the open groups; a new document starts collapsed.
  parts_.canvas->setView(view_, shownDocument_ == doc);
  parts_.selection->clear(/*keepMain=*/true);
  parts_.canvas->graphScene()->setPicked({});
  parts_.marks->show();  // group outlines are per view: recompute them for the new one
  parts_.heat->reapply();
  parts_.canvas->graphScene()->setChanges(canvas::revisionChanges(*doc, doc->currentIndex()));
  shownDocument_ = doc;
  docks.inspector->showNode(view_.get(), core::model::kNoNode);
  parts_.window->statusBar()->showMessage(
      tr("%1 · revision %2 “%3” · %4 in %5 · %6%7")
          .arg(doc->displayName())
          .arg(doc->currentIndex())
          .arg(rev->name())
          .arg(core::model::counted(view_->opCount(), tr("op"), tr("ops")),
               core::model::counted(view_->groups.size() - 1, tr("module"), tr("modules")),
               core::model::counted(view_->jitNodes, tr("TorchScript node"), tr("TorchScript nodes")))
          .arg(rev->frozen() ? QString() : tr(" · not frozen"))
          .append(shapesKnown()
                      ? QString()
                      : tr(" · no shapes recorded: View > Show Shapes on Edges asks for the inputs to find them")));
  if (view_->node(parts_.selection->selected())) parts_.selection->select(parts_.selection->selected());
  Q_EMIT shown();
}

void ShownView::forget() {
  const auto& docks = *parts_.docks;
  parts_.selection->clear();
  parts_.canvas->clear();
  docks.minimap->rebuild();
  docks.modules->setView(nullptr);
  parts_.findBar->setView(nullptr);
  docks.ir->setRevisionText(QString(), nullptr);
  docks.code->setListing(QString(), {});
  docks.inspector->showNode(nullptr, core::model::kNoNode);
  view_.reset();
  ++generation_;
  shownDocument_ = nullptr;
}

bool ShownView::shapesKnown() const {
  const auto* doc = parts_.controller->document();
  if (!doc || !core::run::lacksShapes(*doc->current())) return true;
  const auto found = doc->observedTypes(doc->current().get());
  return found && !found->isEmpty();  // empty: the run failed
}

void ShownView::showShapes() {
  const auto* doc = parts_.controller->document();
  if (!doc || shapesKnown()) return;
  // Asked for, a run is tried again (with Compare's inputs, which may be known by now).
  doc->setObservedTypes(doc->current().get(), nullptr);
  refresh();
  if (shapesKnown()) return;
  // Asked for as Compare asks (the answer is remembered per file), then the view is built anew.
  parts_.docks->compare->askForInputs([this] {
    if (const auto* doc = parts_.controller->document()) {
      doc->setObservedTypes(doc->current().get(), nullptr);
      refresh();
    }
  });
}

}  // namespace graft::ui
