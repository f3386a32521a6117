#include "ui/main_window.h"

#include "core/io/input_specs.h"
#include "core/model/document.h"
#include "core/model/plural.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/mark_layers.h"
#include "ui/canvas/minimap.h"
#include "ui/compare_dock.h"
#include "ui/comparison_marks.h"
#include "ui/diff/diff_window.h"
#include "ui/document/document_controller.h"
#include "ui/document/busy_indicator.h"
#include "ui/document/off_thread.h"
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
#include "ui/selection.h"
#include "ui/shown_view.h"
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
  parts_.window = this;
  parts_.controller = new DocumentController(this);

  // The canvas is the centre, with the find bar above it; with no model open, the start page
  // (samples and tours, in a scroll area so its height never becomes the canvas's minimum).
  auto* centre = new QWidget(this);
  auto* column = new QVBoxLayout(centre);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(0);
  parts_.findBar = new FindBar(centre);
  parts_.findBar->hide();
  parts_.canvas = new canvas::GraphCanvas(centre);
  marks_ = std::make_unique<canvas::MarkLayers>(parts_.canvas->graphScene());
  parts_.marks = marks_.get();
  column->addWidget(parts_.findBar);
  column->addWidget(parts_.canvas, 1);
  centreStack_ = new QStackedWidget(this);
  parts_.startPage = new StartPage(centreStack_);
  auto* startScroll = new QScrollArea(centreStack_);
  startScroll->setWidget(parts_.startPage);
  startScroll->setWidgetResizable(true);
  startScroll->setFrameShape(QFrame::NoFrame);
  centreStack_->addWidget(startScroll);
  centreStack_->addWidget(centre);
  setCentralWidget(centreStack_);

  // The parts, in the order they need each other.
  docks_ = buildMainDocks(this, parts_.canvas);
  parts_.docks = &docks_;
  parts_.selection = new Selection(this);
  parts_.shown = new ShownView(parts_, this);
  parts_.heat = new HeatmapActions(parts_.canvas, docks_.profile, docks_.compare, this);
  parts_.diffs = new DiffWindow(parts_, this);
  parts_.quantError = new QuantErrorOverlay(this);
  presentation_ = std::make_unique<Presentation>(this, parts_.canvas);
  parts_.presentation = presentation_.get();
  parts_.edits = new EditActions(parts_, this);
  parts_.exports = new ExportActions(parts_, this);
  parts_.tourDriver = new TourDriver(parts_, this);
  parts_.tourPanel = new TourPanel(parts_.tourDriver, this);
  addTourDock(this, parts_.tourPanel);
  connectDocks();
  connectSelection();
  connectJobs();
  menus_ = new MainMenus(parts_, this);

  auto* controller = parts_.controller;
  connect(parts_.startPage, &StartPage::sampleRequested, controller,
          [controller](const QString& name) { controller->openSample(name); });
  connect(parts_.startPage, &StartPage::tourRequested, this, [this](const QString& id) { startTour(id); });
  new BusyIndicator(controller, statusBar());
  connect(controller, &DocumentController::documentChanged, this, &MainWindow::showDocument);
  connect(controller, &DocumentController::modifiedChanged, this, &QWidget::setWindowModified);
  connect(controller, &DocumentController::message, this,
          [this](const QString& text, int ms) { statusBar()->showMessage(text, ms); });
  connect(controller, &DocumentController::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(controller, &DocumentController::loadFailed, this, &MainWindow::loadFailed);
  connect(parts_.heat, &HeatmapActions::message, this,
          [this](const QString& text) { statusBar()->showMessage(text, 5000); });
  // A logout or shutdown may end the process without closing this window: the journal stays
  // open for the next start, as after a crash (Qt asks nothing of the window by default).
  connect(qApp, &QGuiApplication::commitDataRequest, controller, &DocumentController::keepJournalForRecovery);
  statusBar()->showMessage(
      tr("Open a model with File > Open (a torch.export .pt2 or a TorchScript .pt), drop one here, "
         "or try File > Open Sample."));
}

MainWindow::~MainWindow() {
  parts_.controller->closeJournal();  // a clean exit: the journal is marked closed while its document lives
}

void MainWindow::connectDocks() {
  const auto& d = docks_;
  auto* controller = parts_.controller;
  auto* canvas = parts_.canvas;
  // Every dock reads the document through the controller's one announcement, and switches on its kind.
  connect(controller, &DocumentController::documentChanged, d.compare, &CompareDock::documentChanged);
  connect(controller, &DocumentController::documentChanged, d.profile, &ProfileDock::documentChanged);
  connect(controller, &DocumentController::documentChanged, d.rewrites, &RewriteDock::documentChanged);
  connect(controller, &DocumentController::documentChanged, d.history, &HistoryDock::documentChanged);
  connect(d.history, &HistoryDock::revisionChosen, controller, &DocumentController::setCurrent);
  connect(d.history, &HistoryDock::diffRequested, parts_.diffs, &DiffWindow::showOpenRevisions);
  // Rewrites go through the controller: journaled like edits, so recovery restores them.
  d.rewrites->setCommitter(
      [controller](const QVector<core::rewrite::Step>& steps) { return controller->applyRewrite(steps); });
  // A rule's matches: every match outlined orange, the one shown (stepped to) purple.
  connect(d.rewrites, &RewriteDock::matchesChanged, this,
          [this](const QVector<core::rewrite::MatchSite>& sites, int current) {
            marks_->set(canvas::MarkLayers::Matches, canvas::matchMarks(sites, current));
          });
  connect(d.issues, &IssuesDock::nodeActivated, this, [this](NodeId id) {
    if (!view() || !view()->node(id))
      statusBar()->showMessage(tr("Node %1 is not in the current revision").arg(id), 4000);
    else revealAndSelect(id);
  });
  connect(canvas, &canvas::GraphCanvas::layoutProgress, this, [this](int done, int total) {
    statusBar()->showMessage(tr("Laying out… %1 of %2 groups").arg(done).arg(total), 2000);
  });
  connect(canvas, &canvas::GraphCanvas::layoutFinished, this, [this] {
    const auto& diagram = parts_.canvas->diagram();
    if (!diagram.error.isEmpty() || !diagram.fallbacks.isEmpty()) reportDiagnostics(diagram.diagnostics());
    if (!diagram.error.isEmpty()) return statusBar()->showMessage(tr("Layout failed: %1").arg(diagram.error));
    const QString done = tr("Layout: %1 ms, %2, %3 drawn")
                             .arg(diagram.layoutMs, 0, 'f', 0)
                             .arg(core::model::counted(diagram.nodes.size(), tr("node"), tr("nodes")),
                                  core::model::counted(diagram.groups.size(), tr("group"), tr("groups")));
    // Missing shapes stay said, with the one action that finds them (docs/usage.md).
    if (parts_.shown->shapesKnown()) return statusBar()->showMessage(done, 5000);
    statusBar()->showMessage(done + tr(" · no shapes recorded: View > Show Shapes on Edges asks for the inputs"));
  });
  parts_.edits->addContextMenus(canvas, d.modules);
  // The History ledger checks each revision with the Compare dock's inputs and tolerance.
  d.history->setCheckSetup([this] {
    HistoryDock::CheckSetup setup;
    const auto* doc = parts_.controller->document();
    if (!doc) return setup;
    setup.inputs = runOffGuiThread([doc, text = docks_.compare->inputSpec()] {
                     return core::io::resolveInputs(*doc, text, 0);
                   }).snapshot();
    setup.atol = docks_.compare->atol();
    setup.rtol = docks_.compare->rtol();
    setup.elementwise = docks_.compare->elementwise();
    setup.device = docks_.compare->deviceBSpec();
    return setup;
  });
  connect(parts_.edits, &EditActions::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(parts_.exports, &ExportActions::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(d.rewrites, &RewriteDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(d.compare, &CompareDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(d.profile, &ProfileDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  reportDiagnostics(d.rewrites->libraryDiagnostics());
}

void MainWindow::connectSelection() {
  const auto& d = docks_;
  auto* chosen = parts_.selection;
  // Whatever names a node selects it; the selection is shown everywhere it can be.
  connect(d.modules, &ModuleTree::nodeActivated, chosen, &Selection::select);
  connect(d.ir, &IrView::nodeActivated, chosen, &Selection::select);
  connect(d.code, &IrView::nodeActivated, chosen, &Selection::select);
  connect(d.profile, &ProfileDock::nodeClicked, chosen, &Selection::select);
  connect(d.compare, &CompareDock::nodeActivated, chosen, &Selection::select);
  connect(parts_.canvas, &canvas::GraphCanvas::nodeActivated, chosen, &Selection::select);
  connect(parts_.canvas, &canvas::GraphCanvas::nodePicked, chosen, &Selection::pick);
  connect(d.rewrites, &RewriteDock::revealRequested, this, &MainWindow::revealAndSelect);
  connect(parts_.findBar, &FindBar::matchActivated, this, &MainWindow::revealAndSelect);
  connect(chosen, &Selection::changed, this, [this](NodeId id) {
    const auto& d = docks_;
    parts_.canvas->graphScene()->setPicked({});
    d.modules->selectNode(id);
    d.ir->highlightNode(id);
    d.code->highlightNode(id);
    parts_.canvas->selectNode(id);
    d.inspector->showNode(view(), id);
    d.rewrites->setSelection(selection());
    Q_EMIT selectionChanged(id);
  });
  connect(chosen, &Selection::pickedChanged, this, [this] {
    parts_.canvas->graphScene()->setPicked(parts_.selection->picked());
    docks_.rewrites->setSelection(selection());
    statusBar()->showMessage(tr("%1 selected (Ctrl+click adds or removes one)")
                                 .arg(core::model::counted(selection().size(), tr("node"), tr("nodes"))), 4000);
  });
  connect(this, &MainWindow::selectionChanged, d.compare, &CompareDock::inspectNode);
}

void MainWindow::connectJobs() {
  const auto& d = docks_;
  connect(d.compare, &CompareDock::devicesChanged, d.profile, &ProfileDock::refreshDevices);
  connect(d.profile, &ProfileDock::finished, this, [this](bool, const QString&) {
    if (docks_.profile->isVisible()) docks_.profile->raise();
  });
  connect(parts_.quantError, &QuantErrorOverlay::finished, this, [this] {
    const auto& r = parts_.quantError->result();
    QString title, low, high;
    if (r.ok) parts_.heat->showErrorHeat(parts_.quantError->heat(&title, &low, &high), title, low, high);
    else reportDiagnostics({core::model::Diagnostic::error(QStringLiteral("compare"), r.error)});
    if (r.ok)
      statusBar()->showMessage(
          tr("%n module(s) compared with the float model; the lowest SQNR: %1 (%2 dB)", nullptr, r.paired)
              .arg(r.worstPath)
              .arg(r.worstSqnrDb, 0, 'f', 1),
          10000);
    Q_EMIT quantErrorShown();
  });
  connect(d.compare, &CompareDock::finished, this, [this] {
    // Its results come to the front wherever the dock sits.
    if (auto* dock = MainDocks::frame(this, "compareDock"); dock && dock->isVisible()) dock->raise();
    // A ledger waiting for inputs can start now that a comparison had them, and so can shapes.
    if (docks_.compare->summary().ok) docks_.history->refresh();
    // Only where no shapes run was tried yet: a failed one stays failed until asked again.
    if (const auto* doc = parts_.controller->document(); doc && docks_.compare->summary().ok &&
                                                         !parts_.shown->shapesKnown() &&
                                                         !doc->observedTypes(doc->current().get()))
      parts_.shown->refresh();
  });
  auto* comparison = new ComparisonMarks(d.compare, marks_.get(), [this] { return view(); }, this);
  connect(comparison, &ComparisonMarks::revealRequested, this, &MainWindow::revealAndSelect);
  connect(d.compare, &CompareDock::float32Found, this, [this] {
    const auto& found = docks_.compare->float32Summary();
    QString error;
    if (!parts_.controller->keepInFloat32(found.nodes, found.floating, &error, found.stored))
      return reportDiagnostics({core::model::Diagnostic::error(
          QStringLiteral("edit"), tr("the nodes could not be kept in float32: %1").arg(error))});
    statusBar()->showMessage(tr("New revision: %1 kept in float32 (Edit > Undo takes it back).")
                                 .arg(found.labels.join(QStringLiteral(", "))),
                             8000);
  });
}

bool MainWindow::openFile(const QString& path, bool freeze, bool trust) {
  return parts_.controller->openFile(path, freeze, trust);
}

bool MainWindow::openSample(const QString& name, bool freeze) { return parts_.controller->openSample(name, freeze); }

bool MainWindow::closeDocument() { return parts_.controller->close(); }

void MainWindow::showDocument(const core::model::Document* document, const core::document::ChangeEvent& event) {
  if (event.movesRevision()) return parts_.shown->refresh();
  if (!event.replacesDocument()) return;  // saved: the title's mark follows modifiedChanged
  // Another document, or none: nothing shown of the previous one stays, nor can be clicked.
  parts_.heat->reset();  // the costs belonged to the previous model
  marks_->clearAll();
  docks_.issues->setDocumentSerial(++documentSerial_);
  parts_.diffs->hide();
  parts_.shown->forget();
  menus_->setModelOpen(document != nullptr);
  if (!document) {
    centreStack_->setCurrentIndex(0);  // the start page takes the centre
    setWindowTitle(QStringLiteral("Graft"));
    setWindowModified(false);
    return docks_.issues->clear();  // closed: its issues go too
  }
  centreStack_->setCurrentIndex(1);
  setWindowTitle(QStringLiteral("%1[*] — Graft").arg(document->displayName()));
  parts_.shown->refresh();
  Q_EMIT documentOpened();
}

const core::model::GraphView* MainWindow::view() const { return parts_.shown->view(); }
bool MainWindow::buildingView() const { return parts_.shown->building(); }
void MainWindow::showShapes() { parts_.shown->showShapes(); }

void MainWindow::closeEvent(QCloseEvent* event) {
  if (parts_.controller->busy() || buildingView() || !parts_.controller->mayDropDocument()) return event->ignore();
  parts_.controller->closeJournal();  // a clean exit (or kept for recovery, when nobody could be asked)
  event->accept();
}

void MainWindow::reportDiagnostics(const core::model::Diagnostics& diagnostics) {
  if (docks_.issues) docks_.issues->add(diagnostics);
}

void MainWindow::runScript(const QString& path) {
  parts_.edits->runScript(path, [this](const QStringList& ids) {
    const auto* doc = parts_.controller->document();
    const int before = doc ? doc->count() : 0;
    docks_.rewrites->applyRules(ids);
    return doc && doc->count() > before;
  });
}

void MainWindow::revealAndSelect(NodeId id) {
  parts_.canvas->revealNode(id);
  selectNode(id);
}

NodeId MainWindow::selectedNode() const { return parts_.selection->selected(); }
void MainWindow::selectNode(NodeId id) { parts_.selection->select(id); }
void MainWindow::pickNode(NodeId id) { parts_.selection->pick(id); }
QVector<NodeId> MainWindow::selection() const { return parts_.selection->nodes(); }

bool MainWindow::showQuantizationError(const QString& floatPath) {
  return parts_.quantError->startForOpen(parts_, floatPath);
}

DiffView* MainWindow::showDiff(int a, int b) { return parts_.diffs->showOpenRevisions(a, b); }
DiffView* MainWindow::showDiffWithFile(const QString& path) { return parts_.diffs->showOpenAgainstFile(path); }
DiffView* MainWindow::diffView() const { return parts_.diffs->view(); }

void MainWindow::startTour(const core::tour::Tour& tour) { parts_.tourPanel->begin(tour); }
bool MainWindow::startTour(const QString& spec) { return parts_.tourPanel->begin(spec); }

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
