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
#include "ui/diff/diff_window.h"
#include "ui/main_docks.h"
#include "ui/quant_error_overlay.h"
#include "ui/shown_view.h"
#include "ui/tour/tour_panel.h"
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
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QMenu>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QStatusBar>

namespace graft::ui {

namespace {
const QString kModelFilter = QStringLiteral("PyTorch models (*.pt *.pth *.pt2 *.zip);;All files (*)");
}

MainMenus::MainMenus(const Workbench& parts, QObject* parent) : QObject(parent), parts_(parts) {
  buildFile();
  QMenu* edit = parts_.window->menuBar()->addMenu(tr("&Edit"));
  parts_.edits->fillEditMenu(edit);
  edit->addSeparator();
  QAction* find = edit->addAction(tr("&Find…"), parts_.findBar, [this] { parts_.findBar->activate(); });
  find->setShortcut(QKeySequence::Find);
  buildView();
  buildRewrite();
  buildRun();
  buildHelp();
  setModelOpen(false);
}

void MainMenus::showDock(const char* objectName) {
  if (auto* dock = MainDocks::frame(parts_.window, objectName)) {
    dock->show();
    dock->raise();
  }
}

void MainMenus::setModelOpen(bool open) {
  for (QAction* a : modelActions_) a->setEnabled(open);
}

void MainMenus::buildFile() {
  auto* controller = parts_.controller;
  QMenu* file = parts_.window->menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(parts_.window, tr("Open model"), QString(),
                                                      tr("PyTorch models (*.pt *.pth *.pt2 *.zip);;torch.export "
                                                         "programs (*.pt2);;TorchScript archives (*.pt *.pth *.zip);;"
                                                         "All files (*)"));
    if (!path.isEmpty()) parts_.controller->openFile(path);
  });
  open->setShortcut(QKeySequence::Open);
  QAction* openTrusted = file->addAction(tr("Open &Trusted…"), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(parts_.window, tr("Open a model you trust"), QString(), kModelFilter);
    if (!path.isEmpty()) parts_.controller->openFile(path, true, true);
  });
  openTrusted->setObjectName(QStringLiteral("openTrustedAction"));
  openTrusted->setToolTip(
      tr("Open a file whose code may run while it opens and whose runs may reach outside the process"));
  connect(parts_.startPage, &StartPage::openRequested, open, &QAction::trigger);
  QMenu* samples = file->addMenu(tr("Open &Sample"));
  samples->setObjectName(QStringLiteral("samplesMenu"));
  for (const auto& s : core::samples::all()) {
    QAction* a = samples->addAction(s.title, this, [this, name = s.name] { parts_.controller->openSample(name); });
    a->setToolTip(s.description);
    a->setData(s.name);
  }
  recent_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  connect(controller, &DocumentController::documentChanged, this, &MainMenus::rebuildRecentMenu);
  file->addAction(parts_.edits->save);
  file->addAction(parts_.edits->saveAs);
  QAction* close = file->addAction(tr("&Close"), this, [this] { parts_.controller->close(); });
  close->setObjectName(QStringLiteral("closeAction"));
  close->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_W));
  file->addSeparator();
  QAction* compareFile = file->addAction(tr("Compare &With File…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(parts_.window, tr("Compare with model"), QString(), kModelFilter);
    if (!path.isEmpty()) parts_.diffs->showOpenAgainstFile(path);
  });
  compareFile->setObjectName(QStringLiteral("compareWithFileAction"));
  file->addSeparator();
  auto* exports = parts_.exports;
  for (QAction* a : {exports->svg, exports->png, exports->report, exports->dot}) file->addAction(a);
  modelActions_ << exports->svg << exports->png << exports->report << exports->dot << compareFile << close
                << parts_.edits->save << parts_.edits->saveAs;
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);
}

void MainMenus::buildView() {
  auto* canvas = parts_.canvas;
  QMenu* view = parts_.window->menuBar()->addMenu(tr("&View"));
  QAction* zoomIn = view->addAction(tr("Zoom &In"), canvas, [canvas] { canvas->zoomBy(1.25); });
  zoomIn->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence::ZoomIn});
  QAction* zoomOut = view->addAction(tr("Zoom &Out"), canvas, [canvas] { canvas->zoomBy(0.8); });
  zoomOut->setShortcuts(QKeySequence::ZoomOut);  // Ctrl+-
  view->addAction(tr("&Fit to Window (F)"), canvas, [canvas] { canvas->fitToWindow(); });
  view->addSeparator();
  view->addAction(tr("&Expand All"), canvas, [canvas] { canvas->expandAll(); });
  view->addAction(tr("&Collapse All"), canvas, [canvas] { canvas->collapseAll(); });
  QAction* fold =
      view->addAction(tr("Fold &Repeated Blocks (×N)"), canvas, [canvas](bool on) { canvas->setFoldRepeats(on); });
  fold->setObjectName(QStringLiteral("foldRepeatsAction"));
  fold->setCheckable(true);
  fold->setChecked(canvas->foldRepeats());
  view->addSeparator();
  QAction* diffOriginal = view->addAction(tr("&Diff Original ↔ Current"), this, [this] {
    if (const auto* doc = parts_.controller->document()) parts_.diffs->showOpenRevisions(0, doc->currentIndex());
  });
  diffOriginal->setObjectName(QStringLiteral("diffOriginalAction"));
  diffOriginal->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  view->addSeparator();
  view->addAction(tr("Show &Shapes on Edges"), this, [this] { parts_.shown->showShapes(); })
      ->setToolTip(tr("Runs the model once to find the shape of every value its graph does not record (a TorchScript "
                      "model, inserted nodes)"));
  view->addAction(parts_.heat->cost);
  view->addAction(parts_.heat->delta);
  modelActions_ << parts_.heat->delta;
  view->addSeparator();
  presentation_ = view->addAction(tr("&Presentation"));
  presentation_->setObjectName(QStringLiteral("presentationAction"));
  presentation_->setCheckable(true);
  presentation_->setShortcut(QKeySequence(Qt::Key_F5));
  presentation_->setToolTip(tr("Larger fonts, only the canvas and the Tour panel, rewrites animated"));
  connect(presentation_, &QAction::toggled, this, [this](bool on) { parts_.presentation->setEnabled(on); });
  view->addSeparator();
  for (auto* dock : parts_.window->findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
}

void MainMenus::buildRewrite() {
  auto* rewrites = parts_.docks->rewrites;
  QMenu* menu = parts_.window->menuBar()->addMenu(tr("&Rewrite"));
  if (auto* dock = MainDocks::frame(parts_.window, "rewritesDock")) menu->addAction(dock->toggleViewAction());
  menu->addSeparator();
  QAction* applyMatch = menu->addAction(tr("Apply &Match"), this, [this, rewrites] {
    showDock("rewritesDock");
    parts_.window->statusBar()->showMessage(rewrites->applyCurrentMatch(), 6000);
  });
  applyMatch->setObjectName(QStringLiteral("applyMatchAction"));
  applyMatch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
  QAction* applyAll = menu->addAction(tr("Apply &All Matches of the Rule"), this, [this, rewrites] {
    showDock("rewritesDock");
    // The rule previewed in the Rewrites dock, exactly as shown (a list rule or the edited one).
    parts_.window->statusBar()->showMessage(rewrites->applyShownRule(), 6000);
  });
  applyAll->setObjectName(QStringLiteral("applyAllAction"));
  applyAll->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
  QAction* draft = menu->addAction(tr("&New Rule from Selection"), this, [this, rewrites] {
    showDock("rewritesDock");
    parts_.window->statusBar()->showMessage(rewrites->newRuleFromSelection(), 6000);
  });
  draft->setObjectName(QStringLiteral("newRuleFromSelectionAction"));
  modelActions_ << applyMatch << applyAll << draft;
}

void MainMenus::buildRun() {
  QMenu* run = parts_.window->menuBar()->addMenu(tr("R&un"));
  QAction* compare = run->addAction(tr("&Compare"), this, [this] {
    showDock("compareDock");
    parts_.docks->compare->start();
  });
  compare->setObjectName(QStringLiteral("compareAction"));
  compare->setShortcut(QKeySequence(Qt::Key_F9));
  QAction* profile = run->addAction(tr("&Profile"), this, [this] {
    parts_.docks->profile->show();
    parts_.docks->profile->raise();
    parts_.docks->profile->start();
  });
  profile->setObjectName(QStringLiteral("profileAction"));
  profile->setShortcut(QKeySequence(Qt::Key_F10));
  QAction* quantError = run->addAction(tr("&Quantization Error Against Float Model…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(parts_.window, tr("The float model this one was quantized from"),
                                                      QString(), kModelFilter);
    if (!path.isEmpty()) parts_.quantError->startForOpen(parts_, path);
  });
  quantError->setObjectName(QStringLiteral("quantErrorAction"));
  quantError->setToolTip(
      tr("Each module's SQNR against the float twin, paired by module path, coloured on the canvas"));
  QAction* trust = run->addAction(tr("Trust This &Model…"), this, [this] { parts_.controller->trustSource(); });
  trust->setObjectName(QStringLiteral("trustAction"));
  trust->setToolTip(tr("Let runs of this model call ops that reach outside the process (files, other processes)"));
  modelActions_ << compare << profile << quantError << trust;
  run->addSeparator();
  QAction* threads = run->addAction(tr("&Threads…"), this, [this] {
    if (askThreads(parts_.window))
      parts_.window->statusBar()->showMessage(tr("Runs use %1 threads").arg(core::run::currentThreads()), 4000);
  });
  threads->setObjectName(QStringLiteral("threadsAction"));
  run->addAction(parts_.docks->compare->devicesAction());  // this machine's devices and SSH hosts
}

void MainMenus::buildHelp() {
  QMenu* help = parts_.window->menuBar()->addMenu(tr("&Help"));
  QMenu* tours = help->addMenu(tr("Guided &Tours"));
  tours->setObjectName(QStringLiteral("toursMenu"));
  for (const auto& t : core::tour::builtinTours()) {
    QAction* a = tours->addAction(t.title, this, [this, t] { parts_.tourPanel->begin(t); });
    a->setToolTip(t.description);
    a->setData(t.id);
  }
  help->addAction(tr("Open T&our…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(parts_.window, tr("Open tour"), QString(),
                                                      tr("Graft tours (*.json);;All files (*)"));
    if (!path.isEmpty()) parts_.tourPanel->begin(path);
  });
  help->addSeparator();
  help->addAction(tr("&About Graft"), this, [this] { showAboutBox(parts_.window); });
}

void MainMenus::rebuildRecentMenu() {
  recent_->clear();
  const QStringList files = recentFiles();
  for (const QString& f : files)
    recent_->addAction(QFileInfo(f).fileName(), this, [this, f] { parts_.controller->openFile(f); })->setToolTip(f);
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
