#include "ui/main_window.h"

#include "core/io/input_specs.h"
#include "core/model/document.h"
#include "core/model/plural.h"
#include "core/run/observed_types.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/mark_layers.h"
#include "ui/canvas/minimap.h"
#include "ui/compare_dock.h"
#include "ui/comparison_marks.h"
#include "ui/diff/diff_window.h"
#include "ui/document/document_controller.h"
#include "ui/document/busy_indicator.h"
#include "ui/document/off_thread.h"
#include "ui/document/shown_revision.h"
#include "ui/edit_actions.h"
#include "ui/error_dialog.h"
#include "ui/export_actions.h"
#include "ui/find_bar.h"
#include "ui/fit_screen.h"
#include "ui/heatmap_actions.h"
#include "ui/history_dock.h"
#include "ui/inspector.h"
#include "ui/ir_view.h"
#include "ui/issues_dock.h"
#include "ui/main_menus.h"
#include "ui/module_tree.h"
#include "ui/presentation.h"
#include "ui/profile/profile_dock.h"
#include "ui/quant_error_overlay.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/start_page.h"
#include "ui/tour/tour_driver.h"
#include "ui/tour/tour_panel.h"
#include "core/tour/tour_library.h"

#include <QtCore/QFileInfo>
#include <QtCore/QMimeData>
#include <QtCore/QScopeGuard>
#include <QtGui/QCloseEvent>
#include <QtGui/QDragEnterEvent>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QScrollArea>
#include <QtWidgets/QStackedWidget>
#include <QtWidgets/QStatusBar>
#include <QtWidgets/QVBoxLayout>
#include <algorithm>

namespace graft::ui {

using core::model::NodeId;

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(QStringLiteral("Graft"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/graft.svg")));
  setAcceptDrops(true);
  resize(fittedSize(this, QSize(1400, 900)));  // never larger than the screen (1366x768 laptops)
  controller_ = new DocumentController(this);

  // The canvas is the centre, with the find bar above it; with no model open, the start page
  // (samples and tours, in a scroll area so its height never becomes the canvas's minimum).
  auto* centre = new QWidget(this);
  auto* column = new QVBoxLayout(centre);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(0);
  findBar_ = new FindBar(centre);
  findBar_->hide();
  canvas_ = new canvas::GraphCanvas(centre);
  marks_ = std::make_unique<canvas::MarkLayers>(canvas_->graphScene());
  diffWindow_ = new DiffWindow(this);
  column->addWidget(findBar_);
  column->addWidget(canvas_, 1);
  centreStack_ = new QStackedWidget(this);
  startPage_ = new StartPage(centreStack_);
  auto* startScroll = new QScrollArea(centreStack_);
  startScroll->setWidget(startPage_);
  startScroll->setWidgetResizable(true);
  startScroll->setFrameShape(QFrame::NoFrame);
  centreStack_->addWidget(startScroll);
  centreStack_->addWidget(centre);
  setCentralWidget(centreStack_);
  connect(startPage_, &StartPage::sampleRequested, this, [this](const QString& name) { openSample(name); });
  connect(startPage_, &StartPage::tourRequested, this, [this](const QString& id) { startTour(id); });

  docks_ = buildMainDocks(this, canvas_);
  editActions_ = new EditActions(this, controller_);
  exports_ = new ExportActions(this, controller_);
  heat_ = new HeatmapActions(canvas_, docks_.profile, docks_.compare, this);
  quantError_ = new QuantErrorOverlay(this);
  tourDriver_ = new TourDriver(this);
  tourPanel_ = new TourPanel(tourDriver_, this);
  addTourDock(this, tourPanel_);
  presentation_ = std::make_unique<Presentation>(this);
  connectDocks();
  menus_ = new MainMenus(this);

  new BusyIndicator(controller_, statusBar());
  connect(controller_, &DocumentController::documentChanged, this, &MainWindow::showDocument);
  connect(controller_, &DocumentController::modifiedChanged, this, &QWidget::setWindowModified);
  connect(controller_, &DocumentController::message, this, [this](const QString& text, int ms) { statusBar()->showMessage(text, ms); });
  connect(controller_, &DocumentController::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(controller_, &DocumentController::loadFailed, this, &MainWindow::loadFailed);
  connect(heat_, &HeatmapActions::message, this, [this](const QString& text) { statusBar()->showMessage(text, 5000); });
  // A logout or shutdown may end the process without closing this window: the journal stays
  // open for the next start, as after a crash (Qt asks nothing of the window by default).
  connect(qApp, &QGuiApplication::commitDataRequest, controller_, &DocumentController::keepJournalForRecovery);
  statusBar()->showMessage(tr("Open a model with File > Open (a torch.export .pt2 or a TorchScript .pt), drop one here, "
                              "or try File > Open Sample."));
}

MainWindow::~MainWindow() {
  controller_->closeJournal();  // a clean exit: the journal is marked closed while its document lives
}

void MainWindow::connectDocks() {
  const auto& d = docks_;
  // Every dock reads the document through the controller's one announcement, and switches on its kind.
  connect(controller_, &DocumentController::documentChanged, d.compare, &CompareDock::documentChanged);
  connect(controller_, &DocumentController::documentChanged, d.profile, &ProfileDock::documentChanged);
  connect(controller_, &DocumentController::documentChanged, d.rewrites, &RewriteDock::documentChanged);
  connect(controller_, &DocumentController::documentChanged, d.history, &HistoryDock::documentChanged);
  connect(d.history, &HistoryDock::revisionChosen, controller_, &DocumentController::setCurrent);
  connect(d.history, &HistoryDock::diffRequested, this, [this](int a, int b) { showDiff(a, b); });
  // Rewrites go through the controller: journaled like edits, so recovery restores them.
  d.rewrites->setCommitter([this](const QVector<core::rewrite::Step>& steps) { return controller_->applyRewrite(steps); });
  // A rule's matches: every match outlined orange, the one shown (stepped to) purple.
  connect(d.rewrites, &RewriteDock::matchesChanged, this, [this](const QVector<core::rewrite::MatchSite>& sites, int current) {
    marks_->set(canvas::MarkLayers::Matches, canvas::matchMarks(sites, current));
  });
  connect(d.rewrites, &RewriteDock::revealRequested, this, &MainWindow::revealAndSelect);
  connect(d.modules, &ModuleTree::nodeActivated, this, &MainWindow::selectNode);
  connect(d.ir, &IrView::nodeActivated, this, &MainWindow::selectNode);
  connect(d.code, &IrView::nodeActivated, this, &MainWindow::selectNode);
  connect(d.profile, &ProfileDock::nodeClicked, this, &MainWindow::selectNode);
  connect(d.compare, &CompareDock::nodeActivated, this, &MainWindow::selectNode);
  connect(canvas_, &canvas::GraphCanvas::nodeActivated, this, &MainWindow::selectNode);
  connect(canvas_, &canvas::GraphCanvas::nodePicked, this, &MainWindow::pickNode);
  connect(findBar_, &FindBar::matchActivated, this, &MainWindow::revealAndSelect);
  connect(d.issues, &IssuesDock::nodeActivated, this, [this](NodeId id) {
    if (!view_ || !view_->node(id)) statusBar()->showMessage(tr("Node %1 is not in the current revision").arg(id), 4000);
    else revealAndSelect(id);
  });
  connect(canvas_, &canvas::GraphCanvas::layoutProgress, this, [this](int done, int total) {
    statusBar()->showMessage(tr("Laying out… %1 of %2 groups").arg(done).arg(total), 2000);
  });
  connect(canvas_, &canvas::GraphCanvas::layoutFinished, this, [this] {
    const auto& diagram = canvas_->diagram();
    if (!diagram.error.isEmpty() || !diagram.fallbacks.isEmpty()) reportDiagnostics(diagram.diagnostics());
    if (!diagram.error.isEmpty()) return statusBar()->showMessage(tr("Layout failed: %1").arg(diagram.error));
    statusBar()->showMessage(tr("Layout: %1 ms, %2, %3 drawn")
                                 .arg(diagram.layoutMs, 0, 'f', 0)
                                 .arg(core::model::counted(diagram.nodes.size(), tr("node"), tr("nodes")),
                                      core::model::counted(diagram.groups.size(), tr("group"), tr("groups"))), 5000);
  });
  editActions_->addContextMenus(canvas_, d.modules);
  // The History ledger checks each revision with the Compare dock's inputs and tolerance.
  d.history->setCheckSetup([this] {
    HistoryDock::CheckSetup setup;
    const auto* doc = controller_->document();
    if (!doc) return setup;
    setup.inputs = runOffGuiThread([doc, text = docks_.compare->inputSpec()] { return core::io::resolveInputs(*doc, text, 0); }).inputs;
    setup.atol = docks_.compare->atol();
    setup.rtol = docks_.compare->rtol();
    setup.elementwise = docks_.compare->elementwise();
    return setup;
  });
  connect(editActions_, &EditActions::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(exports_, &ExportActions::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(d.rewrites, &RewriteDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(d.compare, &CompareDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(d.profile, &ProfileDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  reportDiagnostics(d.rewrites->libraryDiagnostics());
  connect(d.profile, &ProfileDock::finished, this, [this](bool, const QString&) {
    if (docks_.profile->isVisible()) docks_.profile->raise();
  });
  connect(quantError_, &QuantErrorOverlay::finished, this, [this] {
    const auto& r = quantError_->result();
    QString title, low, high;
    if (r.ok) heat_->showErrorHeat(quantError_->heat(&title, &low, &high), title, low, high);
    else reportDiagnostics({core::model::Diagnostic::error(QStringLiteral("compare"), r.error)});
    if (r.ok) statusBar()->showMessage(tr("%n module(s) compared with the float model; the lowest SQNR: %1 (%2 dB)", nullptr, r.paired)
                                           .arg(r.worstPath).arg(r.worstSqnrDb, 0, 'f', 1), 10000);
    Q_EMIT quantErrorShown();
  });
  connect(d.compare, &CompareDock::finished, this, [this] {
    // Its results come to the front wherever the dock sits.
    if (auto* dock = MainDocks::frame(this, "compareDock"); dock && dock->isVisible()) dock->raise();
    // A ledger waiting for inputs can start now that a comparison had them, and so can shapes.
    if (docks_.compare->summary().ok) docks_.history->refresh();
    // Only where no shapes run was tried yet: a failed one stays failed until asked again.
    if (const auto* doc = controller_->document();
        doc && docks_.compare->summary().ok && !shapesKnown() && !doc->observedTypes(doc->current().get()))
      refreshView();
  });
  auto* comparison = new ComparisonMarks(d.compare, marks_.get(), [this] { return view_.get(); }, this);
  connect(comparison, &ComparisonMarks::revealRequested, this, &MainWindow::revealAndSelect);
  connect(d.compare, &CompareDock::float32Found, this, [this] {
    const auto& found = docks_.compare->float32Summary();
    QString error;
    if (!controller_->keepInFloat32(found.nodes, found.floating, &error))
      return reportDiagnostics({core::model::Diagnostic::error(QStringLiteral("edit"), tr("the nodes could not be kept in float32: %1").arg(error))});
    statusBar()->showMessage(tr("New revision: %1 kept in float32 (Edit > Undo takes it back).").arg(found.labels.join(QStringLiteral(", "))), 8000);
  });
  connect(this, &MainWindow::selectionChanged, d.compare, &CompareDock::inspectNode);
}

bool MainWindow::openFile(const QString& path, bool freeze, bool trust) { return controller_->openFile(path, freeze, trust); }

bool MainWindow::openSample(const QString& name, bool freeze) { return controller_->openSample(name, freeze); }

bool MainWindow::closeDocument() { return controller_->close(); }

void MainWindow::showDocument(const core::model::Document* document, const core::document::ChangeEvent& event) {
  if (event.movesRevision()) return refreshView();
  if (!event.replacesDocument()) return;  // saved: the title's mark follows modifiedChanged
  // Another document, or none: nothing shown of the previous one stays, nor can be clicked.
  forgetDocument();
  if (!document) return docks_.issues->clear();  // closed: its issues go too
  centreStack_->setCurrentIndex(1);
  setWindowTitle(QStringLiteral("%1[*] — Graft").arg(document->displayName()));
  menus_->setModelOpen(true);
  refreshView();
  Q_EMIT documentOpened();
}

void MainWindow::forgetDocument() {
  heat_->reset();  // the costs belonged to the previous model
  marks_->clearAll();
  selected_ = core::model::kNoNode;
  picked_.clear();
  docks_.issues->setDocumentSerial(++documentSerial_);
  diffWindow_->hide();
  canvas_->clear();
  docks_.minimap->rebuild();
  docks_.modules->setView(nullptr);
  findBar_->setView(nullptr);
  docks_.ir->setRevisionText(QString(), nullptr);
  docks_.code->setListing(QString(), {});
  docks_.inspector->showNode(nullptr, core::model::kNoNode);
  view_.reset();
  ++viewGeneration_;
  shownDocument_ = nullptr;
  centreStack_->setCurrentIndex(0);  // the start page takes the centre
  setWindowTitle(QStringLiteral("Graft"));
  setWindowModified(false);
  menus_->setModelOpen(false);
}

void MainWindow::refreshView() {
  const auto* doc = controller_->document();
  const auto rev = doc->current();
  const int generation = ++viewGeneration_;
  ++buildingView_;
  const auto building = qScopeGuard([this] { --buildingView_; });
  // Where the graph records no shapes, one run finds them first (once per revision, when the
  // inputs are known), so the view is laid out once, with them.
  const auto built = runOffGuiThread([doc, rev, inputs = docks_.compare->inputSpec()] {
    findShapes(*doc, rev, inputs);
    return buildShownRevision(*doc, rev);
  });
  if (generation != viewGeneration_ || controller_->document() != doc || doc->current() != rev) return;  // a newer one is shown
  view_ = built->view;
  // A program's IR is its fx graph, as print(ep.graph) prints it; a TorchScript model's is its IR.
  if (built->program) docks_.ir->setListing(built->fx.graph.text, built->fx.graph.lineOf);
  else docks_.ir->setRevisionText(built->ir, view_.get());
  docks_.code->setListing(built->fx.code.text, built->fx.code.lineOf);
  docks_.modules->setView(view_.get());
  findBar_->setView(view_.get());
  // A new revision of the same document keeps the open groups; a new document starts collapsed.
  canvas_->setView(view_, shownDocument_ == doc);
  picked_.clear();
  canvas_->graphScene()->setPicked(picked_);
  marks_->show();  // group outlines are per view: recompute them for the new one
  heat_->reapply();
  canvas_->graphScene()->setChanges(canvas::revisionChanges(*doc, doc->currentIndex()));
  shownDocument_ = doc;
  docks_.inspector->showNode(view_.get(), core::model::kNoNode);
  statusBar()->showMessage(tr("%1 · revision %2 “%3” · %4 in %5 · %6%7")
                               .arg(doc->displayName()).arg(doc->currentIndex()).arg(rev->name())
                               .arg(core::model::counted(view_->opCount(), tr("op"), tr("ops")),
                                    core::model::counted(view_->groups.size() - 1, tr("module"), tr("modules")),
                                    core::model::counted(view_->jitNodes, tr("TorchScript node"), tr("TorchScript nodes")))
                               .arg(rev->frozen() ? QString() : tr(" · not frozen"))
                               .append(shapesKnown() ? QString() : tr(" · no shapes recorded: View > Show Shapes on Edges asks for the inputs to find them")));
  if (view_->node(selected_)) selectNode(selected_);
}

bool MainWindow::shapesKnown() const {
  const auto* doc = controller_->document();
  if (!doc || !core::run::lacksShapes(*doc->current())) return true;
  const auto found = doc->observedTypes(doc->current().get());
  return found && !found->isEmpty();  // empty: the run failed
}

void MainWindow::showShapes() {
  const auto* doc = controller_->document();
  if (!doc || shapesKnown()) return;
  // Asked for, a run is tried again (with Compare's inputs, which may be known by now).
  doc->setObservedTypes(doc->current().get(), nullptr);
  refreshView();
  if (shapesKnown()) return;
  // Asked for as Compare asks (the answer is remembered per file), then the view is built anew.
  docks_.compare->askForInputs([this] {
    if (const auto* doc = controller_->document()) {
      doc->setObservedTypes(doc->current().get(), nullptr);
      refreshView();
    }
  });
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (controller_->busy() || buildingView() || !controller_->mayDropDocument()) return event->ignore();
  controller_->closeJournal();  // a clean exit (or kept for recovery, when nobody could be asked)
  event->accept();
}

void MainWindow::reportDiagnostics(const core::model::Diagnostics& diagnostics) {
  if (docks_.issues) docks_.issues->add(diagnostics);
}

void MainWindow::runScript(const QString& path) {
  editActions_->runScript(path, [this](const QStringList& ids) {
    const auto* doc = controller_->document();
    const int before = doc ? doc->count() : 0;
    docks_.rewrites->applyRules(ids);
    return doc && doc->count() > before;
  });
}

void MainWindow::revealAndSelect(NodeId id) {
  canvas_->revealNode(id);
  selectNode(id);
}

void MainWindow::selectNode(NodeId id) {
  selected_ = id;
  picked_.clear();
  canvas_->graphScene()->setPicked(picked_);
  docks_.modules->selectNode(id);
  docks_.ir->highlightNode(id);
  docks_.code->highlightNode(id);
  canvas_->selectNode(id);
  docks_.inspector->showNode(view_.get(), id);
  docks_.rewrites->setSelection(selection());
  Q_EMIT selectionChanged(id);
}

void MainWindow::pickNode(NodeId id) {
  if (selected_ == core::model::kNoNode) return selectNode(id);
  if (id == selected_) {
    // Dropping the main selection: the picked node with the lowest id (if any) takes its place.
    const auto rest = picked_;
    selectNode(rest.isEmpty() ? core::model::kNoNode : *std::min_element(rest.begin(), rest.end()));
    picked_ = rest;
    picked_.remove(selected_);
  } else if (!picked_.remove(id)) {
    picked_.insert(id);
  }
  canvas_->graphScene()->setPicked(picked_);
  docks_.rewrites->setSelection(selection());
  statusBar()->showMessage(tr("%1 selected (Ctrl+click adds or removes one)")
                               .arg(core::model::counted(selection().size(), tr("node"), tr("nodes"))), 4000);
}

QVector<NodeId> MainWindow::selection() const {
  QVector<NodeId> nodes;
  if (selected_ != core::model::kNoNode) nodes << selected_;
  QVector<NodeId> picked(picked_.begin(), picked_.end());
  std::sort(picked.begin(), picked.end());  // the set's own order changes from run to run
  return nodes << picked;
}

bool MainWindow::showQuantizationError(const QString& floatPath) {
  const auto* doc = controller_->document();
  if (!doc) return false;
  QString error;
  if (quantError_->startFor(*doc, docks_.compare, floatPath, &error)) {
    statusBar()->showMessage(tr("Comparing each module with %1…").arg(QFileInfo(floatPath).fileName()));
    return true;
  }
  reportDiagnostics({core::model::Diagnostic::error(QStringLiteral("compare"), error,
                                                    tr("give the inputs in the Compare dock, or open the float model's own file"))});
  return false;
}

DiffView* MainWindow::showDiff(int a, int b) {
  const auto* doc = controller_->document();
  if (!doc) return nullptr;
  QString summary;
  auto* view = diffWindow_->showRevisions(*doc, a, b, diffMetrics(*doc, a, b, docks_.compare->summary(), docks_.profile->before(), docks_.profile->after()), &summary);
  if (view) statusBar()->showMessage(summary, 5000);
  return view;
}

DiffView* MainWindow::showDiffWithFile(const QString& path) {
  const auto* doc = controller_->document();
  if (!doc) return nullptr;
  QString error;
  auto* view = diffWindow_->showFile(*doc, path, &error);
  if (!view) statusBar()->showMessage(error);
  return view;
}

DiffView* MainWindow::diffView() const { return diffWindow_->view(); }

void MainWindow::setTourMarks(const QHash<NodeId, canvas::GraphScene::Mark>& marks) { marks_->set(canvas::MarkLayers::Tour, marks); }

void MainWindow::startTour(const core::tour::Tour& tour) {
  // A tour teaches on its own sample: started over another model (or over that sample edited),
  // it opens the sample first, asking Save/Discard/Cancel about unsaved work; Cancel starts nothing.
  QString sample;
  if (!tour.steps.isEmpty())
    for (const auto& action : tour.steps.front().actions)
      if (action.kind == QLatin1String("open_sample") && sample.isEmpty()) sample = action.text(QStringLiteral("sample"));
  if (!sample.isEmpty()) {
    const auto* doc = controller_->document();
    const bool fresh = doc && doc->sampleName() == sample && doc->count() == 1;
    if (!fresh && doc && !openSample(sample)) {
      statusBar()->showMessage(tr("Tour not started: the sample %1 did not open.").arg(sample), 6000);
      return;
    }
  }
  auto* dock = MainDocks::frame(this, "tourDock");
  dock->show();
  dock->raise();
  // Three tenths of the window at most: on a laptop the canvas keeps the middle.
  resizeDocks({dock}, {std::clamp(width() * 3 / 10, 320, 460)}, Qt::Horizontal);
  tourPanel_->start(tour);
}

bool MainWindow::startTour(const QString& spec) {
  core::tour::TourError error;
  const auto tour = core::tour::resolveTour(spec, &error);
  if (tour) return startTour(*tour), true;
  showError(this, tr("Cannot open tour"), error.toString(), tr("Fix the tour file (see docs/tours.md) and open it again."), QString());
  statusBar()->showMessage(error.toString());
  return false;
}

void MainWindow::setPresentation(bool on) { menus_->presentation()->setChecked(on); }

bool MainWindow::presentation() const { return presentation_->enabled(); }

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  fitToScreen(this);  // now that it knows its screen
  if (!dockColumnSized_) {
    dockColumnSized_ = true;
    sizeDockColumn(this);  // for the size the window has on its screen
  }
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) openFile(urls.front().toLocalFile());
}

}  // namespace graft::ui
