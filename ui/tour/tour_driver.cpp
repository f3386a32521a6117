#include "ui/tour/tour_driver.h"

#include "core/edit/session.h"

#include "core/edit/edit.h"
#include "core/io/load.h"
#include "core/model/document.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "core/run/compare_job.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/compare_dock.h"
#include "ui/edit_actions.h"
#include "ui/document/document_controller.h"
#include "ui/document/off_thread.h"
#include "ui/canvas/mark_layers.h"
#include "ui/main_docks.h"
#include "ui/presentation.h"
#include "ui/selection.h"
#include "ui/shown_view.h"
#include "ui/error_dialog.h"
#include "core/tour/tour_library.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/profile/profile_dock.h"
#include "ui/tour/highlight_overlay.h"

#include <QtCore/QDir>
#include <algorithm>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QStatusBar>

namespace graft::ui {

using core::model::NodeId;
using core::tour::Action;

namespace {
QString dockObjectName(const QString& name) {
  return name == QLatin1String("rewrites") ? QStringLiteral("rewritesDock") : name + QStringLiteral("Dock");
}
core::tour::NodeRef refOf(const Action& a) {
  return {a.text(QStringLiteral("op")), a.text(QStringLiteral("module")),
          a.args.value(QStringLiteral("occurrence")).toInt(0)};
}
QString describe(const core::tour::NodeRef& ref) {
  return ref.module.isEmpty() ? ref.op : QStringLiteral("%1 in %2").arg(ref.op, ref.module);
}
}  // namespace

TourDriver::TourDriver(const Workbench& parts, QObject* parent) : QObject(parent), parts_(parts) {
  poll_.setInterval(40);
  connect(&poll_, &QTimer::timeout, this, [this] {
    // Two idle polls in a row: a worker's finished signal may still be on its way.
    idleTicks_ = busy() ? 0 : idleTicks_ + 1;
    if (idleTicks_ >= 2) next();
  });
  connect(parts_.controller, &DocumentController::documentChanged, this,
          [this](const core::model::Document*, const core::document::ChangeEvent& event) {
            if (event.kind != core::document::ChangeEvent::Kind::Opened) return;
            comparedRevision_ = -1;
            savedLoads_ = false;
          });
  // The step's nodes are found again in each view the window shows.
  connect(parts_.shown, &ShownView::shown, this, &TourDriver::refreshHighlight);
  connect(parts_.docks->compare, &CompareDock::finished, this, [this] {
    comparedRevision_ = parts_.controller->document() ? parts_.controller->document()->currentIndex() : -1;
  });
}

TourDriver::~TourDriver() = default;

bool TourDriver::prepare(const core::tour::Tour& tour) {
  QString sample;
  if (!tour.steps.isEmpty())
    for (const auto& action : tour.steps.front().actions)
      if (action.kind == QLatin1String("open_sample") && sample.isEmpty())
        sample = action.text(QStringLiteral("sample"));
  if (!sample.isEmpty()) {
    const auto* doc = parts_.controller->document();
    const bool fresh = doc && doc->sampleName() == sample && doc->count() == 1;
    if (!fresh && doc && !parts_.controller->openSample(sample)) {
      parts_.window->statusBar()->showMessage(tr("Tour not started: the sample %1 did not open.").arg(sample), 6000);
      return false;
    }
  }
  auto* frame = MainDocks::frame(parts_.window, "tourDock");
  frame->show();
  frame->raise();
  // Three tenths of the window at most: on a laptop the canvas keeps the middle.
  parts_.window->resizeDocks({frame}, {std::clamp(parts_.window->width() * 3 / 10, 320, 460)}, Qt::Horizontal);
  return true;
}

std::optional<core::tour::Tour> TourDriver::resolve(const QString& spec) {
  core::tour::TourError error;
  auto tour = core::tour::resolveTour(spec, &error);
  if (tour) return tour;
  showError(parts_.window, tr("Cannot open tour"), error.toString(),
            tr("Fix the tour file (see docs/tours.md) and open it again."), QString());
  parts_.window->statusBar()->showMessage(error.toString());
  return std::nullopt;
}

QDockWidget* TourDriver::dock(const QString& name) const {
  return parts_.window->findChild<QDockWidget*>(dockObjectName(name));
}

bool TourDriver::busy() const {
  return running_ || parts_.controller->busy() || parts_.shown->building() || parts_.canvas->layoutPending() ||
         parts_.docks->compare->isRunning() || parts_.docks->profile->isRunning();
}

core::tour::State TourDriver::state() const {
  core::tour::State s;
  const auto* doc = parts_.controller->document();
  const auto* view = parts_.shown->view();
  if (!doc || !view) return s;
  s.documentOpen = true;
  s.sample = doc->sampleName();
  s.ops = view->opCount();
  s.histogram = view->histogram;
  s.revisions = doc->count();
  if (const auto* n = view->node(parts_.selection->selected())) {
    s.selectedOp = n->kind;
    s.selectedModule = n->modulePath;
  }
  for (int g : parts_.canvas->expansion())
    if (g > 0 && g < view->groups.size()) s.expandedModules.insert(view->groups[g].path);
  // Presenting keeps every dock but the Tour's hidden: a step that asks for one has done its part.
  for (const QString& name : core::tour::dockNames())
    if (auto* d = dock(name); d && (d->isVisible() || parts_.presentation->enabled())) s.visibleDocks.insert(name);
  const auto& summary = parts_.docks->compare->summary();
  if (summary.ok && comparedRevision_ == doc->currentIndex()) {
    s.compare = summary.equal ? core::tour::State::Compare::Equal : core::tour::State::Compare::Differs;
    if (summary.firstDivergence) {
      if (const auto* n = view->node(summary.firstDivergence->node)) s.firstDivergenceOp = n->kind;
      s.firstDivergenceSelected = summary.firstDivergence->node == parts_.selection->selected();
    }
  }
  s.profiled = parts_.docks->profile->before().has_value();
  s.savedLoads = savedLoads_;
  return s;
}

void TourDriver::perform(const QVector<Action>& actions, std::function<void(const QString&)> done) {
  queue_ = actions;
  done_ = std::move(done);
  idleTicks_ = 0;
  poll_.start();
}

void TourDriver::next() {
  if (queue_.isEmpty()) {
    poll_.stop();
    if (auto done = std::exchange(done_, nullptr)) done(QString());
    return;
  }
  const Action action = queue_.takeFirst();
  running_ = true;
  const QString error = run(action);
  running_ = false;
  idleTicks_ = 0;
  if (!error.isEmpty()) {
    queue_.clear();
    poll_.stop();
    if (auto done = std::exchange(done_, nullptr)) done(QStringLiteral("%1: %2").arg(action.kind, error));
  }
}

QString TourDriver::run(const Action& a) {
  auto* doc = parts_.controller->document();
  const auto* view = parts_.shown->view();
  if (a.kind == QLatin1String("open_sample")) {
    // Already open and untouched (the tour opened it when it started): nothing to do.
    const QString sample = a.text(QStringLiteral("sample"));
    if (doc && doc->sampleName() == sample && doc->count() == 1) return {};
    return parts_.controller->openSample(sample) ? QString() : QStringLiteral("the sample did not open");
  }
  if (a.kind == QLatin1String("show_dock")) {
    auto* d = dock(a.text(QStringLiteral("dock")));
    if (!d) return QStringLiteral("no such dock");
    d->show();
    d->raise();
    return {};
  }
  if (!doc || !view) return QStringLiteral("open a model first");
  if (a.kind == QLatin1String("fit")) {
    parts_.canvas->fitToWindow();
    return {};
  }
  if (a.kind == QLatin1String("select")) {
    const NodeId id = core::tour::findNode(*view, refOf(a));
    if (id == core::model::kNoNode) return QStringLiteral("no %1 node in the current revision").arg(describe(refOf(a)));
    parts_.canvas->revealNode(id);
    parts_.selection->select(id);
    return {};
  }
  if (a.kind == QLatin1String("expand")) {
    const QString path = a.text(QStringLiteral("module"));
    for (const auto& g : view->groups)
      if (g.path == path) {
        auto expansion = parts_.canvas->expansion();
        for (int i = g.index; i > 0; i = view->groups[i].parent) expansion.insert(i);
        parts_.canvas->setExpansion(expansion);
        return {};
      }
    return QStringLiteral("no module %1 in this model").arg(path);
  }
  if (a.kind == QLatin1String("apply_rule")) {
    const auto library = core::rewrite::RuleLibrary::load();
    QString error;
    const QString id = a.text(QStringLiteral("rule"));
    std::optional<core::rewrite::Rule> rule;
    if (library.findPython(id)) {
      // A Python rule of the library, compiled for the open model by the Rewrites dock.
      QApplication::setOverrideCursor(Qt::WaitCursor);
      const auto rules = parts_.docks->rewrites->rulesFor(id, &error);
      QApplication::restoreOverrideCursor();
      if (rules.size() != 1)
        return rules.isEmpty() ? error
                               : QStringLiteral("%1 holds %2 rules for this model; a tour step applies one")
                                     .arg(id)
                                     .arg(rules.size());
      rule = rules.first();
    } else {
      rule = library.resolve(id, &error);
    }
    if (!rule) return error;
    core::rewrite::Step step = core::rewrite::Step::ofRule(*rule);
    if (!a.text(QStringLiteral("op")).isEmpty()) {
      step.onlyAt = core::tour::findNode(*view, refOf(a));
      if (step.onlyAt == core::model::kNoNode)
        return QStringLiteral("no %1 node to apply the rule at").arg(describe(refOf(a)));
    }
    const auto result = parts_.controller->applyRewrite({step});
    if (!result.ok()) return result.error;
    parts_.window->statusBar()->showMessage(
        tr("%1: ops %2 → %3").arg(rule->title).arg(result.opsBefore).arg(result.opsAfter), 8000);
    return {};
  }
  if (a.kind == QLatin1String("replace_op")) {
    const NodeId id = core::tour::findNode(*view, refOf(a));
    if (id == core::model::kNoNode) return QStringLiteral("no %1 node in the current revision").arg(describe(refOf(a)));
    return parts_.edits->applyEdit(core::edit::ReplaceOp{id, a.text(QStringLiteral("to"))}, false)
               ? QString() : QStringLiteral("the edit was refused (see the status bar)");
  }
  if (a.kind == QLatin1String("compare")) {
    dock(QStringLiteral("compare"))->show();
    dock(QStringLiteral("compare"))->raise();
    parts_.docks->compare->start();
    return {};
  }
  if (a.kind == QLatin1String("select_first_divergence")) {
    const auto& s = parts_.docks->compare->summary();
    if (!s.firstDivergence || !view->node(s.firstDivergence->node))
      return QStringLiteral("the last comparison found no divergence");
    parts_.canvas->revealNode(s.firstDivergence->node);
    parts_.selection->select(s.firstDivergence->node);
    return {};
  }
  if (a.kind == QLatin1String("profile")) {
    parts_.docks->profile->show();
    parts_.docks->profile->raise();
    parts_.docks->profile->start();
    return {};
  }
  if (a.kind == QLatin1String("save")) return saveAndReload(a.text(QStringLiteral("file")));
  return QStringLiteral("unknown action");
}

QString TourDriver::saveAndReload(const QString& file) {
  QString folder = saveFolder_;
  if (folder.isEmpty()) {
    if (!tempDir_) tempDir_ = std::make_unique<QTemporaryDir>();
    folder = tempDir_->path();
  }
  const QString path = QDir(folder).filePath(QFileInfo(file).fileName());
  savedLoads_ = false;
  // A copy: the user did not save, so their work stays marked unsaved and is asked about later.
  if (!parts_.controller->saveAs(path, true, /*asCopy=*/true)) return QStringLiteral("could not save %1").arg(path);
  // Read it back (off the GUI thread): the same op count, by the same count, proves the rewrite
  // was saved. Unfrozen, because freezing folds ops on constant weights (aten::t of a weight) and
  // would change the count.
  const int expected = core::rewrite::opCount(*parts_.controller->document()->current());
  QString error;
  const int ops = runOffGuiThread([path, &error] {
    const auto loaded = core::io::loadFile(path, {/*freeze=*/false});
    if (!loaded.ok()) error = loaded.error.headline;
    return loaded.ok() ? core::rewrite::opCount(*loaded.document->current()) : -1;
  });
  if (ops < 0) return QStringLiteral("the saved file does not load: %1").arg(error);
  if (ops != expected) return QStringLiteral("the saved file has %1 ops, the revision %2").arg(ops).arg(expected);
  savedLoads_ = true;
  lastSaved_ = path;
  parts_.window->statusBar()->showMessage(tr("Saved %1 and read it back: %2 ops").arg(path).arg(ops), 8000);
  return {};
}

void TourDriver::setHighlight(const core::tour::Highlight& highlight) {
  highlight_ = highlight;
  // A dock the step talks about has to be on screen (and in front of its tab group); presentation
  // mode keeps the screen to the canvas and the Tour panel, and the Compare or Profile dock.
  for (const QString& name : highlight_.docks)
    if (auto* d = dock(name); d && (!parts_.presentation->enabled() || Presentation::keepsDock(name))) {
      d->show();
      d->raise();
    }
  refreshHighlight();
}

void TourDriver::refreshHighlight() {
  overlays_.clear();
  for (const QString& name : highlight_.docks)
    if (auto* d = dock(name)) overlays_.push_back(std::make_unique<HighlightOverlay>(d));
  QHash<NodeId, canvas::GraphScene::Mark> marks;
  if (const auto* view = parts_.shown->view())
    for (const auto& ref : highlight_.nodes)
      if (const NodeId id = core::tour::findNode(*view, ref); id != core::model::kNoNode)
        marks.insert(id, {HighlightOverlay::colour(), tr("the tour step is about this node"), 4});
  parts_.marks->set(canvas::MarkLayers::Tour, marks);
}

}  // namespace graft::ui
