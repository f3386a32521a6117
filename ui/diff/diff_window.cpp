#include "ui/diff/diff_window.h"

#include "core/edit/graph_diff.h"
#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "core/profile/profile.h"
#include "core/run/compare_job.h"
#include "ui/compare_dock.h"
#include "ui/document/document_controller.h"
#include "ui/document/off_thread.h"
#include "ui/main_docks.h"
#include "ui/profile/profile_dock.h"
#include "ui/error_dialog.h"
#include "ui/fit_screen.h"
#include "core/io/load.h"

#include <QtWidgets/QMainWindow>
#include <QtWidgets/QStatusBar>

namespace graft::ui {

namespace {
// What a diff shows, made off the GUI thread.
struct Built {
  core::edit::GraphDiff diff;
  std::shared_ptr<core::model::GraphView> a, b;
};
}  // namespace

DiffMetrics diffMetrics(const core::model::Document& document, int a, int b, const core::run::CompareSummary& compare,
                        const std::optional<core::profile::Profile>& before,
                        const std::optional<core::profile::Profile>& after) {
  DiffMetrics metrics;
  if (compare.ok)
    for (const auto& r : compare.nodes)
      if (r.node != core::model::kNoNode) metrics.maxAbs.insert(r.node, r.maxAbs);
  if (a == 0 && b == document.currentIndex() && before) {
    const auto& later = after ? *after : *before;
    for (const auto& n : before->nodes) metrics.selfMsA.insert(n.node, n.selfMs.median);
    for (const auto& n : later.nodes) metrics.selfMsB.insert(n.node, n.selfMs.median);
  }
  return metrics;
}

DiffWindow::DiffWindow(const Workbench& parts, QWidget* owner) : QObject(owner), parts_(parts), owner_(owner) {}

DiffView* DiffWindow::showOpenRevisions(int a, int b) {
  const auto* doc = parts_.controller->document();
  if (!doc) return nullptr;
  const auto* compare = parts_.docks->compare;
  const auto* profile = parts_.docks->profile;
  QString summary;
  auto* view = showRevisions(
      *doc, a, b, diffMetrics(*doc, a, b, compare->summary(), profile->before(), profile->after()), &summary);
  if (view) parts_.window->statusBar()->showMessage(summary, 5000);
  return view;
}

DiffView* DiffWindow::showOpenAgainstFile(const QString& path) {
  const auto* doc = parts_.controller->document();
  if (!doc) return nullptr;
  QString error;
  auto* view = showFile(*doc, path, &error);
  if (!view) parts_.window->statusBar()->showMessage(error);
  return view;
}

DiffView* DiffWindow::ensure() {
  if (!view_) {
    view_ = new DiffView(owner_);
    view_->setWindowFlag(Qt::Window);
    // Its own frame included, within the screen's available area (1366×768 laptops too).
    view_->resize(fittedSize(view_, QSize(1366, 768)));
  }
  return view_;
}

void DiffWindow::present() {
  view_->show();
  fitToScreen(view_);
  view_->raise();
}

void DiffWindow::hide() {
  if (view_) view_->hide();
}

DiffView* DiffWindow::showRevisions(const core::model::Document& document, int a, int b, const DiffMetrics& metrics,
                                    QString* summary) {
  if (a < 0 || b < 0 || a >= document.count() || b >= document.count()) return nullptr;
  const auto ra = document.revision(a), rb = document.revision(b);
  // The diff and both views are built off the GUI thread (large models take seconds).
  const Built built = runOffGuiThread([&document, ra, rb] {
    return Built{core::edit::diffGraphs(*ra, *rb, core::edit::DiffMatching::ByProvenance),
                 std::make_shared<core::model::GraphView>(core::model::GraphView::build(*ra, document)),
                 std::make_shared<core::model::GraphView>(core::model::GraphView::build(*rb, document))};
  });
  const auto& diff = built.diff;
  auto* view = ensure();
  view->setGraphs(built.a, built.b, diff, tr("A: revision %1 “%2”").arg(a).arg(ra->name()),
                  tr("B: revision %1 “%2”").arg(b).arg(rb->name()));
  view->setMetrics(metrics);
  view->setWindowTitle(tr("Diff: %1 — Graft").arg(document.displayName()));
  present();
  if (summary)
    *summary = diff.equal() ? tr("Revisions %1 and %2 are the same").arg(a).arg(b)
                            : tr("Revisions %1 and %2: %3 added, %4 removed, %5 changed")
                                  .arg(a)
                                  .arg(b)
                                  .arg(diff.added.size())
                                  .arg(diff.removed.size())
                                  .arg(diff.changed.size());
  return view;
}

DiffView* DiffWindow::showFile(const core::model::Document& document, const QString& path, QString* error) {
  const auto other = runOffGuiThread([path] { return core::io::loadFile(path, {true}); });
  if (!other.ok()) {
    *error = other.error.headline;
    showError(owner_, tr("Cannot open model"), other.error.headline, other.error.hint, other.error.details);
    return nullptr;
  }
  return showDocuments(document, *other.document);
}

DiffView* DiffWindow::showDocuments(const core::model::Document& document, const core::model::Document& other) {
  const auto ra = document.current(), rb = other.current();
  const Built built = runOffGuiThread([&document, &other, ra, rb] {
    return Built{core::edit::diffDocuments(document, *ra, other, *rb),
                 std::make_shared<core::model::GraphView>(core::model::GraphView::build(*ra, document)),
                 std::make_shared<core::model::GraphView>(core::model::GraphView::build(*rb, other))};
  });
  auto* view = ensure();
  view->setGraphs(built.a, built.b, built.diff,
                  tr("A: %1, revision %2").arg(document.displayName()).arg(document.currentIndex()),
                  tr("B: %1").arg(other.displayName()));
  view->setMetrics({});
  view->setWindowTitle(tr("Diff: %1 ↔ %2 — Graft").arg(document.displayName(), other.displayName()));
  present();
  return view;
}

}  // namespace graft::ui
