#include "ui/main_menus.h"

#include "core/model/document.h"
#include "core/run/threads.h"
#include "core/samples/samples.h"
#include "core/tour/tour_library.h"
#include "ui/about_box.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/compare_dock.h"
#include "ui/document/document_controller.h"
#include "ui/edit_actions.h"
#include "ui/export_actions.h"
#include "ui/find_bar.h"
#include "ui/heatmap_actions.h"
#include "ui/history_dock.h"
#include "ui/main_window.h"
#include "ui/presentation.h"
#include "ui/profile/profile_dock.h"
#include "ui/recent_files.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/run_settings.h"
#include "ui/start_page.h"

#include <QtCore/QFileInfo>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QMenu>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QStatusBar>

namespace graft::ui {

namespace {
const QString kModelFilter = QStringLiteral("PyTorch models (*.pt *.pth *.pt2 *.zip);;All files (*)");
}

MainMenus::MainMenus(MainWindow* window) : QObject(window), window_(window) {
  buildFile();
  QMenu* edit = window_->menuBar()->addMenu(tr("&Edit"));
  window_->editActions()->fillEditMenu(edit);
  edit->addSeparator();
  QAction* find = edit->addAction(tr("&Find…"), window_->findBar(), [this] { window_->findBar()->activate(); });
  find->setShortcut(QKeySequence::Find);
  buildView();
  buildRewrite();
  buildRun();
  buildHelp();
  setModelOpen(false);
}

void MainMenus::showDock(const char* objectName) {
  if (auto* dock = MainDocks::frame(window_, objectName)) {
    dock->show();
    dock->raise();
  }
}

void MainMenus::setModelOpen(bool open) {
  for (QAction* a : modelActions_) a->setEnabled(open);
}

void MainMenus::buildFile() {
  auto* controller = window_->controller();
  QMenu* file = window_->menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        window_, tr("Open model"), QString(),
        tr("PyTorch models (*.pt *.pth *.pt2 *.zip);;torch.export programs (*.pt2);;TorchScript archives (*.pt *.pth *.zip);;"
           "All files (*)"));
    if (!path.isEmpty()) window_->openFile(path);
  });
  open->setShortcut(QKeySequence::Open);
  QAction* openTrusted = file->addAction(tr("Open &Trusted…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open a model you trust"), QString(), kModelFilter);
    if (!path.isEmpty()) window_->openFile(path, true, true);
  });
  openTrusted->setObjectName(QStringLiteral("openTrustedAction"));
  openTrusted->setToolTip(tr("Open a file whose code may run while it opens and whose runs may reach outside the process"));
  connect(window_->startPage(), &StartPage::openRequested, open, &QAction::trigger);
  QMenu* samples = file->addMenu(tr("Open &Sample"));
  samples->setObjectName(QStringLiteral("samplesMenu"));
  for (const auto& s : core::samples::all()) {
    QAction* a = samples->addAction(s.title, this, [this, name = s.name] { window_->openSample(name); });
    a->setToolTip(s.description);
    a->setData(s.name);
  }
  recent_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  connect(controller, &DocumentController::documentChanged, this, &MainMenus::rebuildRecentMenu);
  file->addAction(window_->editActions()->save);
  file->addAction(window_->editActions()->saveAs);
  QAction* close = file->addAction(tr("&Close"), this, [this] { window_->closeDocument(); });
  close->setObjectName(QStringLiteral("closeAction"));
  close->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
  file->addSeparator();
  QAction* compareFile = file->addAction(tr("Compare &With File…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Compare with model"), QString(), kModelFilter);
    if (!path.isEmpty()) window_->showDiffWithFile(path);
  });
  compareFile->setObjectName(QStringLiteral("compareWithFileAction"));
  file->addSeparator();
  auto* exports = window_->exports();
  for (QAction* a : {exports->svg, exports->png, exports->report, exports->dot}) file->addAction(a);
  modelActions_ << exports->svg << exports->png << exports->report << exports->dot << compareFile << close
                << window_->editActions()->save << window_->editActions()->saveAs;
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);
}

void MainMenus::buildView() {
  auto* canvas = window_->canvas();
  QMenu* view = window_->menuBar()->addMenu(tr("&View"));
  QAction* zoomIn = view->addAction(tr("Zoom &In"), canvas, [canvas] { canvas->zoomBy(1.25); });
  zoomIn->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence::ZoomIn});
  QAction* zoomOut = view->addAction(tr("Zoom &Out"), canvas, [canvas] { canvas->zoomBy(0.8); });
  zoomOut->setShortcuts(QKeySequence::ZoomOut);  // Ctrl+-
  view->addAction(tr("&Fit to Window (F)"), canvas, [canvas] { canvas->fitToWindow(); });
  view->addSeparator();
  view->addAction(tr("&Expand All"), canvas, [canvas] { canvas->expandAll(); });
  view->addAction(tr("&Collapse All"), canvas, [canvas] { canvas->collapseAll(); });
  QAction* fold = view->addAction(tr("Fold &Repeated Blocks (×N)"), canvas, [canvas](bool on) { canvas->setFoldRepeats(on); });
  fold->setObjectName(QStringLiteral("foldRepeatsAction"));
  fold->setCheckable(true);
  fold->setChecked(canvas->foldRepeats());
  view->addSeparator();
  QAction* diffOriginal = view->addAction(tr("&Diff Original ↔ Current"), this, [this] {
    if (const auto* doc = window_->controller()->document()) window_->showDiff(0, doc->currentIndex());
  });
  diffOriginal->setObjectName(QStringLiteral("diffOriginalAction"));
  diffOriginal->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  view->addSeparator();
  view->addAction(tr("Show &Shapes on Edges"), this, [this] { window_->showShapes(); })
      ->setToolTip(tr("Runs the model once to find the shape of every value its graph does not record (a TorchScript model, inserted nodes)"));
  view->addAction(window_->heatmaps()->cost);
  view->addAction(window_->heatmaps()->delta);
  modelActions_ << window_->heatmaps()->delta;
  view->addSeparator();
  presentation_ = view->addAction(tr("&Presentation"));
  presentation_->setObjectName(QStringLiteral("presentationAction"));
  presentation_->setCheckable(true);
  presentation_->setShortcut(QKeySequence(Qt::Key_F5));
  presentation_->setToolTip(tr("Larger fonts, only the canvas and the Tour panel, rewrites animated"));
  connect(presentation_, &QAction::toggled, this, [this](bool on) { window_->presentationMode()->setEnabled(on); });
  view->addSeparator();
  for (auto* dock : window_->findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
}

void MainMenus::buildRewrite() {
  auto* rewrites = window_->rewriteDock();
  QMenu* menu = window_->menuBar()->addMenu(tr("&Rewrite"));
  if (auto* dock = MainDocks::frame(window_, "rewritesDock")) menu->addAction(dock->toggleViewAction());
  menu->addSeparator();
  QAction* applyMatch = menu->addAction(tr("Apply &Match"), this, [this, rewrites] {
    showDock("rewritesDock");
    window_->statusBar()->showMessage(rewrites->applyCurrentMatch(), 6000);
  });
  applyMatch->setObjectName(QStringLiteral("applyMatchAction"));
  applyMatch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
  QAction* applyAll = menu->addAction(tr("Apply &All Matches of the Rule"), this, [this, rewrites] {
    showDock("rewritesDock");
    // The rule previewed in the Rewrites dock, exactly as shown (a list rule or the edited one).
    window_->statusBar()->showMessage(rewrites->shownRules().isEmpty() ? tr("Select a rule in the Rewrites dock first.")
                                                                       : rewrites->applyShownRule(), 6000);
  });
  applyAll->setObjectName(QStringLiteral("applyAllAction"));
  applyAll->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
  QAction* draft = menu->addAction(tr("&New Rule from Selection"), this, [this, rewrites] {
    showDock("rewritesDock");
    window_->statusBar()->showMessage(rewrites->newRuleFromSelection(), 6000);
  });
  draft->setObjectName(QStringLiteral("newRuleFromSelectionAction"));
  modelActions_ << applyMatch << applyAll << draft;
}

void MainMenus::buildRun() {
  QMenu* run = window_->menuBar()->addMenu(tr("R&un"));
  QAction* compare = run->addAction(tr("&Compare"), this, [this] {
    showDock("compareDock");
    window_->compareDock()->start();
  });
  compare->setObjectName(QStringLiteral("compareAction"));
  compare->setShortcut(QKeySequence(Qt::Key_F9));
  QAction* profile = run->addAction(tr("&Profile"), this, [this] {
    window_->profileDock()->show();
    window_->profileDock()->raise();
    window_->profileDock()->start();
  });
  profile->setObjectName(QStringLiteral("profileAction"));
  profile->setShortcut(QKeySequence(Qt::Key_F10));
  QAction* quantError = run->addAction(tr("&Quantization Error Against Float Model…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("The float model this one was quantized from"), QString(), kModelFilter);
    if (!path.isEmpty()) window_->showQuantizationError(path);
  });
  quantError->setObjectName(QStringLiteral("quantErrorAction"));
  quantError->setToolTip(tr("Each module's SQNR against the float twin, paired by module path, coloured on the canvas"));
  QAction* trust = run->addAction(tr("Trust This &Model…"), this, [this] { window_->controller()->trustSource(); });
  trust->setObjectName(QStringLiteral("trustAction"));
  trust->setToolTip(tr("Let runs of this model call ops that reach outside the process (files, other processes)"));
  modelActions_ << compare << profile << quantError << trust;
  run->addSeparator();
  QAction* threads = run->addAction(tr("&Threads…"), this, [this] {
    if (askThreads(window_)) window_->statusBar()->showMessage(tr("Runs use %1 threads").arg(core::run::currentThreads()), 4000);
  });
  threads->setObjectName(QStringLiteral("threadsAction"));
  run->addAction(window_->compareDock()->devicesAction());  // this machine's devices and SSH hosts
}

void MainMenus::buildHelp() {
  QMenu* help = window_->menuBar()->addMenu(tr("&Help"));
  QMenu* tours = help->addMenu(tr("Guided &Tours"));
  tours->setObjectName(QStringLiteral("toursMenu"));
  for (const auto& t : core::tour::builtinTours()) {
    QAction* a = tours->addAction(t.title, this, [this, t] { window_->startTour(t); });
    a->setToolTip(t.description);
    a->setData(t.id);
  }
  help->addAction(tr("Open T&our…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open tour"), QString(), tr("Graft tours (*.json);;All files (*)"));
    if (!path.isEmpty()) window_->startTour(path);
  });
  help->addSeparator();
  help->addAction(tr("&About Graft"), this, [this] { showAboutBox(window_); });
}

void MainMenus::rebuildRecentMenu() {
  recent_->clear();
  const QStringList files = recentFiles();
  for (const QString& f : files) recent_->addAction(QFileInfo(f).fileName(), this, [this, f] { window_->openFile(f); })->setToolTip(f);
  if (files.isEmpty()) {
    recent_->addAction(tr("(none)"))->setEnabled(false);
  } else {
    recent_->addSeparator();
    recent_->addAction(tr("Clear"), this, [this] {
      clearRecentFiles();
      rebuildRecentMenu();
    });
  }
}

}  // namespace graft::ui
