#include "ui/main_window.h"

#include "core/edit/session.h"

#include "core/io/load.h"
#include "core/model/document.h"
#include "core/model/fx_text.h"
#include "core/report/versions.h"
#include "core/samples/samples.h"
#include "core/edit/graph_diff.h"
#include "core/edit/graph_diff.h"
#include "ui/diff/diff_view.h"
#include "ui/diff/diff_window.h"
#include "ui/render/report_diagrams.h"
#include "core/io/atomic_write.h"
#include "core/io/save.h"
#include "core/layout/layout_engine.h"
#include "core/report/html_report.h"
#include "ui/history_dock.h"
#include <QtGui/QCloseEvent>
#include <QtGui/QGuiApplication>
#include "core/run/input_specs.h"
#include "core/layout/flat_dot.h"
#include "ui/render/diagram_export.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"
#include "ui/canvas/mark_layers.h"
#include "ui/canvas/minimap.h"
#include "ui/edit_actions.h"
#include "ui/compare_dock.h"
#include "ui/quant_error_overlay.h"
#include "ui/error_dialog.h"
#include "ui/find_bar.h"
#include "ui/issues_dock.h"
#include "ui/fit_screen.h"
#include "ui/inspector.h"
#include "ui/ir_view.h"
#include "ui/module_tree.h"
#include "ui/profile/profile_dock.h"
#include "ui/recent_files.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/run_settings.h"
#include "ui/presentation.h"
#include "ui/start_page.h"
#include "ui/tour/tour_driver.h"
#include "ui/tour/tour_panel.h"
#include "core/run/threads.h"
#include "core/tour/tour_library.h"

#include <QtCore/QFileInfo>
#include <QtCore/QMimeData>
#include <QtGui/QDragEnterEvent>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QLabel>
#include <QtWidgets/QMenu>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QMessageBox>
#include <QtWidgets/QScrollArea>
#include <QtWidgets/QStackedWidget>
#include <QtWidgets/QStatusBar>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

using core::model::NodeId;

namespace {
// Loads a model file under a wait cursor; a failure is reported the one way a load failure is
// (Issues dock, error box, status bar) and comes back in the result.
core::io::LoadResult loadReported(MainWindow& window, const QString& path, bool freeze) {
  QApplication::setOverrideCursor(Qt::WaitCursor);
  auto result = core::io::loadFile(path, {freeze});
  QApplication::restoreOverrideCursor();
  if (!result.ok()) {
    window.reportDiagnostics(result.error.diagnostics(path));
    showError(&window, MainWindow::tr("Cannot open model"), result.error.headline, result.error.hint, result.error.details);
    window.statusBar()->showMessage(result.error.headline);
  }
  return result;
}
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(QStringLiteral("Graft"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/graft.svg")));
  setAcceptDrops(true);
  resize(fittedSize(this, QSize(1400, 900)));  // never larger than the screen (1366x768 laptops)

  // The canvas is the centre, with the find bar above it.
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
  // No model open: the start page (samples and tours) takes the centre.
  centreStack_ = new QStackedWidget(this);
  startPage_ = new StartPage(centreStack_);
  // In a scroll area, so the page's height does not become the canvas's minimum height.
  auto* startScroll = new QScrollArea(centreStack_);
  startScroll->setWidget(startPage_);
  startScroll->setWidgetResizable(true);
  startScroll->setFrameShape(QFrame::NoFrame);
  centreStack_->addWidget(startScroll);
  centreStack_->addWidget(centre);
  setCentralWidget(centreStack_);
  connect(startPage_, &StartPage::sampleRequested, this, [this](const QString& name) { openSample(name); });
  connect(startPage_, &StartPage::tourRequested, this, [this](const QString& id) { startTour(id); });

  irView_ = new IrView(this);
  auto* irDock = new QDockWidget(tr("IR"), this);
  irDock->setObjectName(QStringLiteral("irDock"));
  irDock->setWidget(irView_);
  addDockWidget(Qt::RightDockWidgetArea, irDock);
  // The Code view: the graph as the Python that torch.fx generates for it (graph_module.code).
  codeView_ = new IrView(this);
  codeView_->setObjectName(QStringLiteral("codeView"));
  codeView_->setPlaceholderText(tr("Open a model to see its graph as Python code."));
  auto* codeDock = new QDockWidget(tr("Code"), this);
  codeDock->setObjectName(QStringLiteral("codeDock"));
  codeDock->setWidget(codeView_);
  addDockWidget(Qt::RightDockWidgetArea, codeDock);
  tabifyDockWidget(irDock, codeDock);
  irDock->raise();

  inspector_ = new Inspector(this);
  auto* inspectorDock = new QDockWidget(tr("Inspector"), this);
  inspectorDock->setObjectName(QStringLiteral("inspectorDock"));
  inspectorDock->setWidget(scrollable(inspector_));
  addDockWidget(Qt::RightDockWidgetArea, inspectorDock);
  resizeDocks({irDock, inspectorDock}, {420, 420}, Qt::Horizontal);

  moduleTree_ = new ModuleTree(this);
  auto* modulesDock = new QDockWidget(tr("Modules"), this);
  modulesDock->setObjectName(QStringLiteral("modulesDock"));
  modulesDock->setWidget(moduleTree_);
  addDockWidget(Qt::LeftDockWidgetArea, modulesDock);
  minimap_ = new canvas::Minimap(canvas_, this);
  auto* overviewDock = new QDockWidget(tr("Overview"), this);
  overviewDock->setObjectName(QStringLiteral("overviewDock"));
  overviewDock->setWidget(minimap_);
  addDockWidget(Qt::LeftDockWidgetArea, overviewDock);
  resizeDocks({modulesDock}, {300}, Qt::Horizontal);
  resizeDocks({modulesDock, overviewDock}, {600, 220}, Qt::Vertical);

  profileDock_ = new ProfileDock(this);
  addDockWidget(Qt::BottomDockWidgetArea, profileDock_);
  profileDock_->hide();
  connect(profileDock_, &ProfileDock::nodeClicked, this, &MainWindow::selectNode);

  auto* rewriteDock = new QDockWidget(tr("Rewrites"), this);
  rewriteDock->setObjectName(QStringLiteral("rewritesDock"));
  auto* rewrites = new RewriteDock(rewriteDock);
  rewriteDock_ = rewrites;
  rewriteDock->setWidget(scrollable(rewrites));
  addDockWidget(Qt::RightDockWidgetArea, rewriteDock);
  connect(this, &MainWindow::documentOpened, rewrites, [this, rewrites] { rewrites->setDocument(document_.get()); });
  // Rewrites go through the editing session: journaled like edits, so recovery restores them.
  rewrites->setCommitter([this](const QVector<core::rewrite::Step>& steps) {
    if (auto* session = editActions_->session()) return session->applyRewrite(steps);
    core::rewrite::ApplyResult none;
    none.error = tr("Open a model first.");
    return none;
  });
  // A rule's matches: every match outlined orange, the one shown (stepped to) purple.
  connect(rewrites, &RewriteDock::matchesChanged, this, [this](const QVector<core::rewrite::MatchSite>& sites, int current) {
    marks_->set(canvas::MarkLayers::Matches, canvas::matchMarks(sites, current));
  });
  connect(rewrites, &RewriteDock::revealRequested, this, [this](NodeId id) {
    canvas_->revealNode(id);
    selectNode(id);
  });

  connect(moduleTree_, &ModuleTree::nodeActivated, this, &MainWindow::selectNode);
  connect(irView_, &IrView::nodeActivated, this, &MainWindow::selectNode);
  connect(codeView_, &IrView::nodeActivated, this, &MainWindow::selectNode);
  connect(canvas_, &canvas::GraphCanvas::nodeActivated, this, &MainWindow::selectNode);
  connect(canvas_, &canvas::GraphCanvas::nodePicked, this, &MainWindow::pickNode);
  connect(findBar_, &FindBar::matchActivated, this, [this](NodeId id) {
    canvas_->revealNode(id);
    selectNode(id);
  });
  connect(canvas_, &canvas::GraphCanvas::layoutProgress, this, [this](int done, int total) {
    statusBar()->showMessage(tr("Laying out… %1 of %2 groups").arg(done).arg(total), 2000);
  });
  connect(canvas_, &canvas::GraphCanvas::layoutFinished, this, [this] {
    if (!canvas_->diagram().error.isEmpty()) {
      reportDiagnostics(canvas_->diagram().diagnostics());
      statusBar()->showMessage(tr("Layout failed: %1").arg(canvas_->diagram().error));
      return;
    }
    if (!canvas_->diagram().fallbacks.isEmpty()) reportDiagnostics(canvas_->diagram().diagnostics());
    statusBar()->showMessage(tr("Layout: %1 ms, %2 nodes, %3 groups drawn")
                                 .arg(canvas_->diagram().layoutMs, 0, 'f', 0)
                                 .arg(canvas_->diagram().nodes.size())
                                 .arg(canvas_->diagram().groups.size()), 5000);
  });

  editActions_ = new EditActions(this);
  moduleTree_->setContextMenuPolicy(Qt::ActionsContextMenu);
  moduleTree_->addActions(editActions_->nodeActions());
  // Right-click on a canvas box selects it and offers the same node edits.
  canvas_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(canvas_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    for (auto* item : canvas_->items(pos))
      if (auto* node = dynamic_cast<canvas::NodeItem*>(item)) {
        selectNode(node->id());
        QMenu menu(this);
        menu.addActions(editActions_->nodeActions());
        menu.exec(canvas_->viewport()->mapToGlobal(pos));
        return;
      }
  });
  // The right column: the inspector on top; IR, rewrites and history share the space below as tabs.
  if (auto* history = findChild<QDockWidget*>(QStringLiteral("historyDock"))) {
    tabifyDockWidget(irDock, rewriteDock);
    tabifyDockWidget(rewriteDock, history);
    irDock->raise();
  }
  // Compare: revisions A/B of the open document, run in a worker thread; it shares the bottom
  // area with the Profile dock.
  compareDock_ = new CompareDock(this);
  // The History ledger checks each revision with the Compare dock's inputs and tolerance.
  editActions_->history()->setCheckSetup([this] {
    HistoryDock::CheckSetup setup;
    if (!document_) return setup;
    setup.inputs = core::run::resolveInputs(*document_, compareDock_->inputSpec(), 0).inputs;
    setup.atol = compareDock_->atol();
    setup.rtol = compareDock_->rtol();
    setup.elementwise = compareDock_->elementwise();
    return setup;
  });
  auto* compareDock = new QDockWidget(tr("Compare"), this);
  compareDock->setObjectName(QStringLiteral("compareDock"));
  compareDock->setWidget(scrollable(compareDock_));
  addDockWidget(Qt::BottomDockWidgetArea, compareDock);
  tabifyDockWidget(profileDock_, compareDock);
  compareDock->hide();
  // Issues: the record of every job's diagnostics, a third tab of the bottom area.
  issuesDock_ = new IssuesDock(this);
  addDockWidget(Qt::BottomDockWidgetArea, issuesDock_);
  tabifyDockWidget(compareDock, issuesDock_);
  issuesDock_->hide();
  connect(issuesDock_, &IssuesDock::nodeActivated, this, [this](NodeId id) {
    if (!view_ || !view_->node(id)) {
      statusBar()->showMessage(tr("Node %1 is not in the current revision").arg(id), 4000);
      return;
    }
    canvas_->revealNode(id);
    selectNode(id);
  });
  connect(editActions_, &EditActions::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(editActions_, &EditActions::modifiedChanged, this, &QWidget::setWindowModified);
  connect(rewrites, &RewriteDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(compareDock_, &CompareDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  connect(profileDock_, &ProfileDock::diagnosticsReported, this, &MainWindow::reportDiagnostics);
  reportDiagnostics(rewrites->libraryDiagnostics());
  // The bottom docks scroll rather than grow the window; shown, they take two fifths of it.
  for (QDockWidget* bottom : {static_cast<QDockWidget*>(profileDock_), compareDock, static_cast<QDockWidget*>(issuesDock_)})
    connect(bottom, &QDockWidget::visibilityChanged, this, [this, bottom](bool visible) {
      if (visible && bottom->height() < height() / 3) resizeDocks({bottom}, {height() * 2 / 5}, Qt::Vertical);
    });
  connect(compareDock_, &CompareDock::nodeActivated, this, &MainWindow::selectNode);
  connect(profileDock_, &ProfileDock::finished, this, [this](bool, const QString&) {
    if (profileDock_->isVisible()) profileDock_->raise();
  });
  connect(compareDock_, &CompareDock::finished, this, [this] {
    // Its results come to the front wherever the dock sits.
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("compareDock")); dock && dock->isVisible()) dock->raise();
    showDivergence(true);
    // A ledger waiting for inputs can start now that a comparison had them.
    if (compareDock_->summary().ok) editActions_->history()->refresh();
  });
  connect(compareDock_, &CompareDock::overlayToggled, this, [this] { showDivergence(false); });
  connect(compareDock_, &CompareDock::reduceFinished, this, [this] {
    const auto& r = compareDock_->reduceSummary();
    if (!r.ok) return;
    marks_->add(canvas::MarkLayers::Comparison, canvas::reduceMarks(r));
    if (view_ && view_->node(r.failing)) canvas_->revealNode(r.failing);
  });
  connect(compareDock_, &CompareDock::float32Found, this, [this] {
    const auto& found = compareDock_->float32Summary();
    QString error;
    if (!editActions_->session() || !editActions_->session()->keepInFloat32(found.nodes, found.floating, &error)) {
      reportDiagnostics({core::model::Diagnostic::error(QStringLiteral("edit"), tr("the nodes could not be kept in float32: %1").arg(error))});
      return;
    }
    statusBar()->showMessage(tr("New revision: %1 kept in float32 (Edit > Undo takes it back).").arg(found.labels.join(QStringLiteral(", "))), 8000);
  });
  connect(compareDock_, &CompareDock::errorHeatChanged, this, [this] {
    QString title, low, high;
    const auto heat = compareDock_->errorHeat(&title, &low, &high);
    if (heat.isEmpty()) {
      if (!heatAction_->isChecked()) canvas_->setHeat({});
      return;
    }
    QSignalBlocker block(heatAction_);  // one heatmap at a time: the error replaces the cost
    heatAction_->setChecked(false);
    canvas_->setErrorHeat(heat, title, low, high);
  });
  connect(this, &MainWindow::selectionChanged, compareDock_, &CompareDock::inspectNode);

  // Guided tours: the panel shares the left column with the Modules tree as a tab.
  tourDriver_ = new TourDriver(this);
  tourPanel_ = new TourPanel(tourDriver_, this);
  auto* tourDock = new QDockWidget(tr("Tour"), this);
  tourDock->setObjectName(QStringLiteral("tourDock"));
  tourDock->setWidget(tourPanel_);
  addDockWidget(Qt::LeftDockWidgetArea, tourDock);
  tabifyDockWidget(modulesDock, tourDock);
  tourDock->hide();
  presentation_ = std::make_unique<Presentation>(this);
  buildMenus();
  for (QAction* a : modelActions_) a->setEnabled(false);  // until a model is open
  // A logout or shutdown may end the process without closing this window: the journal stays
  // open for the next start, as after a crash (Qt asks nothing of the window by default).
  connect(qApp, &QGuiApplication::commitDataRequest, this, [this] { editActions_->keepJournalForRecovery(); });

  statusBar()->showMessage(tr("Open a model with File > Open (a torch.export .pt2 or a TorchScript .pt), drop one here, "
                              "or try File > Open Sample."));
}

MainWindow::~MainWindow() {
  editActions_->closeSession();  // a clean exit: the journal is marked closed while its document lives
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open model"), QString(),
        tr("PyTorch models (*.pt *.pth *.pt2 *.zip);;torch.export programs (*.pt2);;TorchScript archives (*.pt *.pth *.zip);;"
           "All files (*)"));
    if (!path.isEmpty()) openFile(path);
  });
  open->setShortcut(QKeySequence::Open);
  connect(startPage_, &StartPage::openRequested, open, &QAction::trigger);
  QMenu* samples = file->addMenu(tr("Open &Sample"));
  samples->setObjectName(QStringLiteral("samplesMenu"));
  for (const auto& s : core::samples::all()) {
    QAction* a = samples->addAction(s.title, this, [this, name = s.name] { openSample(name); });
    a->setToolTip(s.description);
    a->setData(s.name);
  }
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addAction(editActions_->save);
  file->addAction(editActions_->saveAs);
  QAction* close = file->addAction(tr("&Close"), this, [this] { closeDocument(); });
  close->setObjectName(QStringLiteral("closeAction"));
  close->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
  file->addSeparator();
  QAction* compareFile = file->addAction(tr("Compare &With File…"), this, [this] {
    if (!document_) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Compare with model"), QString(),
                                                      tr("PyTorch models (*.pt *.pth *.pt2 *.zip);;All files (*)"));
    if (!path.isEmpty()) showDiffWithFile(path);
  });
  compareFile->setObjectName(QStringLiteral("compareWithFileAction"));
  file->addSeparator();
  modelActions_ << file->addAction(tr("Export Diagram as &SVG…"), this,
                  [this] { exportDialog(tr("SVG images (*.svg)"), QStringLiteral(".svg"), &MainWindow::exportSvg); });
  modelActions_ << file->addAction(tr("Export Diagram as &PNG…"), this,
                  [this] { exportDialog(tr("PNG images (*.png)"), QStringLiteral(".png"), &MainWindow::exportPng); });
  QAction* report = file->addAction(tr("Export &Report…"), this,
                  [this] { exportDialog(tr("HTML pages (*.html)"), QStringLiteral(".html"), &MainWindow::exportReport); });
  report->setObjectName(QStringLiteral("exportReportAction"));
  modelActions_ << report << compareFile << close;
  modelActions_ << file->addAction(tr("Export Op Graph as &DOT…"), this,
                  [this] { exportDialog(tr("Graphviz DOT (*.dot *.gv)"), QStringLiteral(".dot"), &MainWindow::exportDot); });
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  editActions_->fillEditMenu(edit);
  edit->addSeparator();
  QAction* find = edit->addAction(tr("&Find…"), this, [this] { findBar_->activate(); });
  find->setShortcut(QKeySequence::Find);

  QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
  QAction* zoomIn = viewMenu->addAction(tr("Zoom &In"), this, [this] { canvas_->zoomBy(1.25); });
  zoomIn->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence::ZoomIn});
  QAction* zoomOut = viewMenu->addAction(tr("Zoom &Out"), this, [this] { canvas_->zoomBy(0.8); });
  zoomOut->setShortcuts(QKeySequence::ZoomOut);  // Ctrl+-
  viewMenu->addAction(tr("&Fit to Window (F)"), this, [this] { canvas_->fitToWindow(); });
  viewMenu->addSeparator();
  viewMenu->addAction(tr("&Expand All"), this, [this] { canvas_->expandAll(); });
  viewMenu->addAction(tr("&Collapse All"), this, [this] { canvas_->collapseAll(); });
  QAction* fold = viewMenu->addAction(tr("Fold &Repeated Blocks (×N)"), this, [this](bool on) { canvas_->setFoldRepeats(on); });
  fold->setObjectName(QStringLiteral("foldRepeatsAction"));
  fold->setCheckable(true);
  fold->setChecked(canvas_->foldRepeats());
  viewMenu->addSeparator();
  QAction* diffOriginal = viewMenu->addAction(tr("&Diff Original ↔ Current"), this, [this] {
    if (document_) showDiff(0, document_->currentIndex());
  });
  diffOriginal->setObjectName(QStringLiteral("diffOriginalAction"));
  diffOriginal->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  connect(editActions_->history(), &HistoryDock::diffRequested, this, [this](int a, int b) { showDiff(a, b); });
  viewMenu->addSeparator();
  heatAction_ = viewMenu->addAction(tr("Cost &Heatmap"));
  heatAction_->setObjectName(QStringLiteral("heatmapAction"));
  heatAction_->setCheckable(true);
  heatAction_->setEnabled(false);
  heatAction_->setToolTip(tr("Colour nodes by their self time in the last profile (Profile dock)"));
  auto* deltaAction = viewMenu->addAction(tr("Cost &Change Heatmap (vs Original)"));
  deltaAction->setObjectName(QStringLiteral("deltaHeatmapAction"));
  deltaAction->setToolTip(tr("Colour nodes by how much faster (green) or slower (red) they run than what they replaced"));
  connect(deltaAction, &QAction::triggered, this, [this] {
    const auto deltas = profileDock_->nodeDeltas();
    if (deltas.isEmpty()) {
      statusBar()->showMessage(tr("Profile the original and a revision first (Run > Profile)."), 5000);
      return;
    }
    QSignalBlocker block(heatAction_);
    heatAction_->setChecked(true);
    canvas_->setHeat(deltas, /*signedDelta=*/true);
  });
  modelActions_ << deltaAction;
  connect(heatAction_, &QAction::toggled, this, [this](bool on) {
    if (on) {
      QSignalBlocker block(compareDock_);
      compareDock_->setErrorMetric(CompareDock::ErrorMetric::Off);
    }
    canvas_->setHeat(on ? profileDock_->nodeCosts() : QHash<NodeId, double>{});
  });
  connect(profileDock_, &ProfileDock::costsChanged, this, [this] {
    heatAction_->setEnabled(!profileDock_->nodeCosts().isEmpty());
    if (heatAction_->isChecked()) canvas_->setHeat(profileDock_->nodeCosts());
    else heatAction_->setChecked(true);  // a fresh profile is shown on the graph at once
  });
  viewMenu->addSeparator();
  presentationAction_ = viewMenu->addAction(tr("&Presentation"));
  presentationAction_->setObjectName(QStringLiteral("presentationAction"));
  presentationAction_->setCheckable(true);
  presentationAction_->setShortcut(QKeySequence(Qt::Key_F5));
  presentationAction_->setToolTip(tr("Larger fonts, only the canvas and the Tour panel, rewrites animated"));
  connect(presentationAction_, &QAction::toggled, this, [this](bool on) { presentation_->setEnabled(on); });
  viewMenu->addSeparator();
  for (auto* dock : findChildren<QDockWidget*>()) viewMenu->addAction(dock->toggleViewAction());

  // Actions that need an open model are disabled without one (modelActions_, documentOpened).
  QMenu* rewriteMenu = menuBar()->addMenu(tr("&Rewrite"));
  if (auto* dock = findChild<QDockWidget*>(QStringLiteral("rewritesDock"))) rewriteMenu->addAction(dock->toggleViewAction());
  rewriteMenu->addSeparator();
  auto showRewrites = [this] {
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("rewritesDock"))) {
      dock->show();
      dock->raise();
    }
  };
  QAction* applyMatch = rewriteMenu->addAction(tr("Apply &Match"), this, [this, showRewrites] {
    showRewrites();
    statusBar()->showMessage(rewriteDock_->applyCurrentMatch(), 6000);
  });
  applyMatch->setObjectName(QStringLiteral("applyMatchAction"));
  applyMatch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
  QAction* applyAll = rewriteMenu->addAction(tr("Apply &All Matches of the Rule"), this, [this, showRewrites] {
    showRewrites();
    const QString rule = rewriteDock_->selectedRule();
    statusBar()->showMessage(rule.isEmpty() ? tr("Select a rule in the Rewrites dock first.") : rewriteDock_->applyRules({rule}), 6000);
  });
  applyAll->setObjectName(QStringLiteral("applyAllAction"));
  applyAll->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
  QAction* draft = rewriteMenu->addAction(tr("&New Rule from Selection"), this, [this, showRewrites] {
    showRewrites();
    statusBar()->showMessage(rewriteDock_->newRuleFromSelection(), 6000);
  });
  draft->setObjectName(QStringLiteral("newRuleFromSelectionAction"));

  QMenu* runMenu = menuBar()->addMenu(tr("R&un"));
  QAction* compare = runMenu->addAction(tr("&Compare"), this, [this] {
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("compareDock"))) {
      dock->show();
      dock->raise();
    }
    compareDock_->start();
  });
  compare->setObjectName(QStringLiteral("compareAction"));
  compare->setShortcut(QKeySequence(Qt::Key_F9));
  QAction* profile = runMenu->addAction(tr("&Profile"), this, [this] {
    profileDock_->show();
    profileDock_->raise();
    profileDock_->start();
  });
  profile->setObjectName(QStringLiteral("profileAction"));
  profile->setShortcut(QKeySequence(Qt::Key_F10));
  QAction* quantError = runMenu->addAction(tr("&Quantization Error Against Float Model…"), this, [this] {
    if (!document_) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("The float model this one was quantized from"), QString(),
                                                      tr("PyTorch models (*.pt *.pth *.pt2 *.zip);;All files (*)"));
    if (!path.isEmpty()) showQuantizationError(path);
  });
  quantError->setObjectName(QStringLiteral("quantErrorAction"));
  quantError->setToolTip(tr("Each module's SQNR against the float twin, paired by module path, coloured on the canvas"));
  modelActions_ << quantError;
  runMenu->addSeparator();
  modelActions_ << applyMatch << applyAll << draft << compare << profile << editActions_->save << editActions_->saveAs;
  QAction* threads = runMenu->addAction(tr("&Threads…"), this, [this] {
    if (askThreads(this)) statusBar()->showMessage(tr("Runs use %1 threads").arg(core::run::currentThreads()), 4000);
  });
  threads->setObjectName(QStringLiteral("threadsAction"));

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QMenu* tours = help->addMenu(tr("Guided &Tours"));
  tours->setObjectName(QStringLiteral("toursMenu"));
  for (const auto& t : core::tour::builtinTours()) {
    QAction* a = tours->addAction(t.title, this, [this, t] { startTour(t); });
    a->setToolTip(t.description);
    a->setData(t.id);
  }
  help->addAction(tr("Open T&our…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open tour"), QString(), tr("Graft tours (*.json);;All files (*)"));
    if (!path.isEmpty()) startTour(path);
  });
  help->addSeparator();
  help->addAction(tr("&About Graft"), this, &MainWindow::showAbout);
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = recentFiles();
  for (const QString& f : files) recentMenu_->addAction(QFileInfo(f).fileName(), this, [this, f] { openFile(f); })->setToolTip(f);
  if (files.isEmpty()) recentMenu_->addAction(tr("(none)"))->setEnabled(false);
  else {
    recentMenu_->addSeparator();
    recentMenu_->addAction(tr("Clear"), this, [this] { clearRecentFiles(); rebuildRecentMenu(); });
  }
}

bool MainWindow::openFile(const QString& path, bool freeze) {
  if (!editActions_->mayDropDocument()) return false;
  auto result = loadReported(*this, path, freeze);
  if (!result.ok()) {
    Q_EMIT loadFailed(result.error.headline);
    return false;
  }
  addRecentFile(path);
  rebuildRecentMenu();
  setDocument(std::move(result.document));
  return true;
}

bool MainWindow::openSample(const QString& name, bool freeze) {
  if (!editActions_->mayDropDocument()) return false;
  auto result = core::io::loadSample(name, {freeze});
  if (!result.ok()) {
    reportDiagnostics(result.error.diagnostics());
    showError(this, tr("Cannot open sample"), result.error.headline, result.error.hint, result.error.details);
    Q_EMIT loadFailed(result.error.headline);
    return false;
  }
  setDocument(std::move(result.document));
  return true;
}

void MainWindow::setDocument(std::unique_ptr<core::model::Document> document) {
  centreStack_->setCurrentIndex(1);
  editActions_->closeSession();  // its journal refers to the old document
  document_ = std::move(document);
  issuesDock_->setDocumentSerial(++documentSerial_);
  if (compareDock_) compareDock_->setDocument(document_.get());
  selected_ = core::model::kNoNode;
  profileDock_->setDocument(document_.get());
  heatAction_->setChecked(false);  // the costs belonged to the previous model
  marks_->clear(canvas::MarkLayers::Comparison);  // so did the comparison
  diffWindow_->hide();                             // and the diff
  heatAction_->setEnabled(false);
  refreshView();
  editActions_->startSession();
  // Connected after the Session's own connections: the journal has every change (an undo or a
  // History click included) before the views show it.
  connect(document_.get(), &core::model::Document::currentChanged, this, &MainWindow::refreshView);
  setWindowTitle(QStringLiteral("%1[*] — Graft").arg(document_->displayName()));
  setWindowModified(false);
  for (QAction* a : modelActions_) a->setEnabled(true);
  Q_EMIT documentOpened();
}

bool MainWindow::closeDocument() {
  if (!document_) return true;
  if (!editActions_->mayDropDocument()) return false;
  editActions_->closeSession();
  if (compareDock_) compareDock_->setDocument(nullptr);
  profileDock_->setDocument(nullptr);
  rewriteDock_->setDocument(nullptr);
  heatAction_->setChecked(false);
  heatAction_->setEnabled(false);
  marks_->clearAll();
  selected_ = core::model::kNoNode;
  issuesDock_->setDocumentSerial(++documentSerial_);
  // Every view forgets the closed model: nothing of it can be clicked or selected any more.
  canvas_->clear();
  minimap_->rebuild();
  moduleTree_->setView(nullptr);
  findBar_->setView(nullptr);
  irView_->setRevisionText(QString(), nullptr);
  codeView_->setListing(QString(), {});
  inspector_->showNode(nullptr, core::model::kNoNode);
  issuesDock_->clear();
  picked_.clear();
  diffWindow_->hide();
  view_.reset();
  document_.reset();
  shownDocument_ = nullptr;
  centreStack_->setCurrentIndex(0);  // the start page takes the centre
  setWindowTitle(QStringLiteral("Graft"));
  setWindowModified(false);
  for (QAction* a : modelActions_) a->setEnabled(false);
  return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!editActions_->mayDropDocument()) {
    event->ignore();
    return;
  }
  editActions_->closeSession();  // a clean exit (or kept for recovery, when nobody could be asked)
  event->accept();
}

void MainWindow::reportDiagnostics(const core::model::Diagnostics& diagnostics) {
  if (!issuesDock_) return;
  issuesDock_->add(diagnostics);
  // A new error comes to the front of the tab group when the dock is shown (warnings, such as a
  // differing comparison, leave the dock that reported them in front).
  const bool error = std::any_of(diagnostics.begin(), diagnostics.end(),
                                 [](const core::model::Diagnostic& d) { return d.severity == core::model::Severity::Error; });
  if (error && issuesDock_->isVisible()) issuesDock_->raise();
}

void MainWindow::runScript(const QString& path) {
  editActions_->runScript(path, [this](const QStringList& ids) {
    const int before = document_ ? document_->count() : 0;
    rewriteDock_->applyRules(ids);
    return document_ && document_->count() > before;
  });
}

void MainWindow::refreshView() {
  const auto rev = document_->current();
  view_ = std::make_shared<core::model::GraphView>(core::model::GraphView::build(*rev, *document_));
  // A program's IR is its fx graph, as print(ep.graph) prints it; a TorchScript model's is its IR.
  const auto fx = core::model::fxText(*rev);
  if (document_->format() == QLatin1String("pt2")) irView_->setListing(fx.graph.text, fx.graph.lineOf);
  else irView_->setRevisionText(rev->irText(), view_.get());
  codeView_->setListing(fx.code.text, fx.code.lineOf);
  moduleTree_->setView(view_.get());
  findBar_->setView(view_.get());
  // A new revision of the same document keeps the open groups; a new document starts collapsed.
  canvas_->setView(view_, shownDocument_ == document_.get());
  picked_.clear();
  canvas_->graphScene()->setPicked(picked_);
  marks_->show();  // group outlines are per view: recompute them for the new one
  if (heatAction_->isChecked()) canvas_->setHeat(profileDock_->nodeCosts());
  showChangesOf(document_->currentIndex());
  shownDocument_ = document_.get();
  inspector_->showNode(view_.get(), core::model::kNoNode);
  statusBar()->showMessage(tr("%1 · revision %2 “%3” · %4 ops in %5 modules · %6 TorchScript nodes%7")
                               .arg(document_->displayName())
                               .arg(document_->currentIndex())
                               .arg(rev->name())
                               .arg(view_->opCount())
                               .arg(view_->groups.size() - 1)
                               .arg(view_->jitNodes)
                               .arg(rev->frozen() ? QString() : tr(" · not frozen")));
  if (view_->node(selected_)) selectNode(selected_);
}

void MainWindow::showChangesOf(int index) {
  QHash<NodeId, canvas::GraphScene::Change> changes;
  if (const int parent = document_->parentOf(index); parent >= 0) {
    // The same differences the History dock lists and the Diff view outlines.
    const auto d = core::edit::diffGraphs(*document_->revision(parent), *document_->revision(index),
                                          core::edit::DiffMatching::ByProvenance);
    for (const auto& c : d.changed) changes.insert(c.node, canvas::GraphScene::Change::Modified);
    for (const auto& a : d.added) changes.insert(a.node, canvas::GraphScene::Change::Added);
  }
  canvas_->graphScene()->setChanges(changes);
}

void MainWindow::selectNode(NodeId id) {
  selected_ = id;
  picked_.clear();
  canvas_->graphScene()->setPicked(picked_);
  moduleTree_->selectNode(id);
  irView_->highlightNode(id);
  codeView_->highlightNode(id);
  canvas_->selectNode(id);
  inspector_->showNode(view_.get(), id);
  rewriteDock_->setSelection(selection());
  Q_EMIT selectionChanged(id);
}

void MainWindow::pickNode(NodeId id) {
  if (selected_ == core::model::kNoNode) return selectNode(id);
  if (id == selected_) {
    // Dropping the main selection: the first picked node (if any) takes its place.
    const auto rest = picked_;
    selectNode(rest.isEmpty() ? core::model::kNoNode : *rest.begin());
    picked_ = rest;
    picked_.remove(selected_);
  } else if (!picked_.remove(id)) {
    picked_.insert(id);
  }
  canvas_->graphScene()->setPicked(picked_);
  rewriteDock_->setSelection(selection());
  statusBar()->showMessage(tr("%n node(s) selected (Ctrl+click adds or removes one)", nullptr, int(selection().size())), 4000);
}

QVector<NodeId> MainWindow::selection() const {
  QVector<NodeId> nodes;
  if (selected_ != core::model::kNoNode) nodes << selected_;
  for (auto id : picked_) nodes << id;
  return nodes;
}

void MainWindow::showDivergence(bool reveal) {
  NodeId target = core::model::kNoNode;
  marks_->set(canvas::MarkLayers::Comparison, compareDock_->overlayEnabled()
                                                  ? canvas::comparisonMarks(compareDock_->summary(), &target)
                                                  : canvas::MarkLayers::Marks{});
  if (reveal && target != core::model::kNoNode && view_ && view_->node(target)) {
    canvas_->revealNode(target);
    selectNode(target);
  }
}

bool MainWindow::showQuantizationError(const QString& floatPath) {
  if (!document_) return false;
  if (!quantError_) {
    quantError_ = new QuantErrorOverlay(this);
    connect(quantError_, &QuantErrorOverlay::finished, this, [this] {
      const auto& r = quantError_->result();
      if (!r.ok) {
        reportDiagnostics({core::model::Diagnostic::error(QStringLiteral("compare"), r.error)});
      } else {
        QString title, low, high;
        const auto heat = quantError_->heat(&title, &low, &high);
        QSignalBlocker block(heatAction_);  // one heatmap at a time
        heatAction_->setChecked(false);
        canvas_->setErrorHeat(heat, title, low, high);
        statusBar()->showMessage(tr("%n module(s) compared with the float model; the lowest SQNR: %1 (%2 dB)", nullptr, r.paired)
                                     .arg(r.worstPath).arg(r.worstSqnrDb, 0, 'f', 1), 10000);
      }
      Q_EMIT quantErrorShown();
    });
  }
  const auto inputs = core::run::resolveInputs(*document_, compareDock_->inputSpec(), 0);
  if (!inputs.inputs && inputs.missingShape >= 0) {
    // The model records no inputs: asked for as Compare asks, then started with the answer.
    compareDock_->askForInputs([this, floatPath] { showQuantizationError(floatPath); });
    return true;
  }
  QString error = inputs.inputs ? QString() : inputs.error;
  if (error.isEmpty() && quantError_->start(document_->current(), floatPath, inputs.inputs, &error)) {
    statusBar()->showMessage(tr("Comparing each module with %1…").arg(QFileInfo(floatPath).fileName()));
    return true;
  }
  reportDiagnostics({core::model::Diagnostic::error(QStringLiteral("compare"), error,
                                                    tr("give the inputs in the Compare dock, or open the float model's own file"))});
  return false;
}

DiffView* MainWindow::showDiff(int a, int b) {
  if (!document_) return nullptr;
  // Node ids are shared by the revisions of one document, so the last compare and profile apply
  // to the nodes both sides still have.
  DiffMetrics metrics;
  if (compareDock_->summary().ok)
    for (const auto& r : compareDock_->summary().nodes)
      if (r.node != core::model::kNoNode) metrics.maxAbs.insert(r.node, r.maxAbs);
  if (a == 0 && b == document_->currentIndex() && profileDock_->before()) {
    const auto& before = *profileDock_->before();
    const auto& after = profileDock_->after() ? *profileDock_->after() : before;
    for (const auto& n : before.nodes) metrics.selfMsA.insert(n.node, n.selfMs.median);
    for (const auto& n : after.nodes) metrics.selfMsB.insert(n.node, n.selfMs.median);
  }
  QString summary;
  auto* view = diffWindow_->showRevisions(*document_, a, b, metrics, &summary);
  if (view) statusBar()->showMessage(summary, 5000);
  return view;
}

DiffView* MainWindow::showDiffWithFile(const QString& path) {
  if (!document_) return nullptr;
  auto other = loadReported(*this, path, /*freeze=*/true);
  if (!other.ok()) return nullptr;
  return diffWindow_->showDocuments(*document_, *other.document);
}

DiffView* MainWindow::diffView() const { return diffWindow_->view(); }

void MainWindow::setTourMarks(const QHash<NodeId, canvas::GraphScene::Mark>& marks) {
  marks_->set(canvas::MarkLayers::Tour, marks);
}

void MainWindow::startTour(const core::tour::Tour& tour) {
  auto* dock = findChild<QDockWidget*>(QStringLiteral("tourDock"));
  dock->show();
  dock->raise();
  resizeDocks({dock}, {460}, Qt::Horizontal);
  tourPanel_->start(tour);
}

bool MainWindow::startTour(const QString& spec) {
  core::tour::TourError error;
  const auto tour = core::tour::resolveTour(spec, &error);
  if (!tour) {
    showError(this, tr("Cannot open tour"), error.toString(), tr("Fix the tour file (see docs/tours.md) and open it again."), QString());
    statusBar()->showMessage(error.toString());
    return false;
  }
  startTour(*tour);
  return true;
}

void MainWindow::setPresentation(bool on) { presentationAction_->setChecked(on); }

bool MainWindow::presentation() const { return presentation_->enabled(); }

void MainWindow::exportDialog(const QString& filter, const QString& suffix, bool (MainWindow::*write)(const QString&)) {
  if (!view_) return;
  QString path = QFileDialog::getSaveFileName(this, tr("Export"), QString(), filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += suffix;
  // The output policy: an export never replaces the opened model, nor writes to a device.
  if (const QString why = core::io::checkOutputPath(path, {document_ ? document_->sourcePath() : QString()}); !why.isEmpty()) {
    statusBar()->showMessage(why);
    return;
  }
  if ((this->*write)(path)) statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

bool MainWindow::exportSvg(const QString& path) {
  QString error;
  if (view_ && canvas::writeSvg(path, canvas_->diagram(), *view_, &error)) return true;
  statusBar()->showMessage(error.isEmpty() ? tr("Nothing to export") : error);
  if (!error.isEmpty()) reportDiagnostics(core::io::SaveResult{false, error}.diagnostics(path));
  return false;
}

bool MainWindow::exportPng(const QString& path) {
  QString error;
  if (view_ && canvas::writePng(path, canvas_->diagram(), *view_, 1.5, 16000, &error)) return true;
  statusBar()->showMessage(error.isEmpty() ? tr("Nothing to export") : error);
  if (!error.isEmpty()) reportDiagnostics(core::io::SaveResult{false, error}.diagnostics(path));
  return false;
}

bool MainWindow::exportReport(const QString& path) {
  if (!document_ || !view_) return false;
  if (const QString why = core::io::checkOutputPath(path, {document_->sourcePath()}); !why.isEmpty()) {
    statusBar()->showMessage(why);
    return false;
  }
  const int current = document_->currentIndex();
  core::report::HtmlReport r = core::report::assembleReport(
      *document_, *document_->original(), nullptr, document_->current().get(),
      tr("revision 0 “%1”").arg(document_->original()->name()), tr("revision %1 “%2”").arg(current).arg(document_->current()->name()));
  if (compareDock_->summary().ok) r.compare = compareDock_->summary();
  else r.compareNote = tr("No compare has been run (Compare dock).");
  if (profileDock_->before()) {
    r.before = profileDock_->before();
    r.after = profileDock_->after();
    r.beforeLabel = tr("original");
    r.afterLabel = tr("current");
  } else {
    r.profileNote = tr("No profile has been run (Profile dock).");
  }
  if (current != 0) {
    // The original beside the current revision, with the same modules open.
    const auto original = core::model::GraphView::build(*document_->original(), *document_);
    QSet<QString> open;
    for (int g : canvas_->expansion()) open.insert(view_->groups.value(g).path);
    core::layout::Expansion expanded{0};
    for (const auto& g : original.groups)
      if (open.contains(g.path)) expanded.insert(g.index);
    core::layout::LayoutEngine engine;
    engine.setView(std::make_shared<core::model::GraphView>(original));
    addReportDiagram(r, tr("revision 0 “%1”").arg(document_->original()->name()), engine.layout(expanded), original, false);
  }
  addReportDiagram(r, tr("revision %1 “%2”").arg(current).arg(document_->current()->name()), canvas_->diagram(), *view_, true);
  setReportLegend(r);
  if (const QString why = core::io::writeAtomically(path, core::report::htmlReport(r)); !why.isEmpty()) {
    statusBar()->showMessage(tr("Cannot write %1: %2").arg(path, why));
    reportDiagnostics(core::io::SaveResult{false, tr("Cannot write %1: %2").arg(path, why)}.diagnostics(path));
    return false;
  }
  return true;
}

bool MainWindow::exportDot(const QString& path) {
  if (!view_) return false;
  if (const QString why = core::io::writeAtomically(path, core::layout::flatDot(*view_)); !why.isEmpty()) {
    statusBar()->showMessage(tr("Cannot write %1: %2").arg(path, why));
    return false;
  }
  return true;
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  fitToScreen(this);  // now that it knows its screen
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) openFile(urls.front().toLocalFile());
}

void MainWindow::showAbout() {
  const auto v = core::report::versions();
  auto* box = new QMessageBox(QMessageBox::Information, tr("About Graft"),
                              tr("<h3>Graft %1</h3><p>See, rewrite and verify PyTorch model graphs.</p>"
                                 "<table><tr><td>Qt</td><td>%2</td></tr>"
                                 "<tr><td>libtorch</td><td>%3<br><small>%4<br>built against %5</small></td></tr>"
                                 "<tr><td>torchvision ops</td><td><small>%6</small></td></tr>"
                                 "<tr><td>Graphviz</td><td>%7</td></tr>"
                                 "<tr><td>Threads</td><td>%8</td></tr>"
                                 "<tr><td>CUDA</td><td>%9</td></tr></table>"
                                 "<p>Running a model executes its TorchScript code: open only models you trust.</p>")
                                  .arg(v.graft, v.qt, v.torch, v.torchLibrary.toHtmlEscaped(), v.torchBuilt,
                                       (v.torchvisionLoaded ? v.torchvision : tr("not loaded: %1").arg(v.torchvision)).toHtmlEscaped(),
                                       v.graphviz, QString::number(v.threads),
                                       v.cuda ? tr("available") : tr("not available")),
                              QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("aboutDialog"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace graft::ui
