#include "ui/main_window.h"

#include "core/io/load.h"
#include "core/model/document.h"
#include "core/samples/samples.h"
#include "ui/compare_dock.h"
#include "ui/error_dialog.h"
#include "ui/ir_view.h"
#include "ui/module_tree.h"
#include "ui/recent_files.h"

#include <QtCore/QFileInfo>
#include <QtCore/QMimeData>
#include <QtGui/QDragEnterEvent>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QLabel>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QMessageBox>
#include <QtWidgets/QStatusBar>

namespace graft::ui {

using core::model::NodeId;

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(QStringLiteral("Graft"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/graft.svg")));
  setAcceptDrops(true);
  resize(1400, 900);

  irView_ = new IrView(this);
  setCentralWidget(irView_);

  moduleTree_ = new ModuleTree(this);
  auto* modulesDock = new QDockWidget(tr("Modules"), this);
  modulesDock->setObjectName(QStringLiteral("modulesDock"));
  modulesDock->setWidget(moduleTree_);
  addDockWidget(Qt::LeftDockWidgetArea, modulesDock);
  resizeDocks({modulesDock}, {380}, Qt::Horizontal);

  connect(moduleTree_, &ModuleTree::nodeActivated, this, &MainWindow::selectNode);
  connect(irView_, &IrView::nodeActivated, this, &MainWindow::selectNode);

  buildMenus();

  // Compare: revisions A/B of the open document, run in a worker thread.
  compareDock_ = new CompareDock(this);
  auto* compareDock = new QDockWidget(tr("Compare"), this);
  compareDock->setObjectName(QStringLiteral("compareDock"));
  compareDock->setWidget(compareDock_);
  addDockWidget(Qt::RightDockWidgetArea, compareDock);
  compareDock->hide();
  connect(compareDock_, &CompareDock::nodeActivated, this, &MainWindow::selectNode);
  menuBar()->addMenu(tr("&View"))->addAction(compareDock->toggleViewAction());

  statusBar()->showMessage(tr("Open a TorchScript model with File > Open, drop a .pt file here, "
                              "or try File > Open Sample."));
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open TorchScript model"), QString(),
                                                      tr("TorchScript archives (*.pt *.pth *.zip);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
  });
  open->setShortcut(QKeySequence::Open);
  QMenu* samples = file->addMenu(tr("Open &Sample"));
  samples->setObjectName(QStringLiteral("samplesMenu"));
  for (const auto& s : core::samples::all()) {
    QAction* a = samples->addAction(s.title, this, [this, name = s.name] { openSample(name); });
    a->setToolTip(s.description);
    a->setData(s.name);
  }
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
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
  QApplication::setOverrideCursor(Qt::WaitCursor);
  auto result = core::io::loadFile(path, {freeze});
  QApplication::restoreOverrideCursor();
  if (!result.ok()) {
    showError(this, tr("Cannot open model"), result.error.headline, result.error.hint, result.error.details);
    statusBar()->showMessage(result.error.headline);
    Q_EMIT loadFailed(result.error.headline);
    return false;
  }
  addRecentFile(path);
  rebuildRecentMenu();
  setDocument(std::move(result.document));
  return true;
}

bool MainWindow::openSample(const QString& name, bool freeze) {
  auto result = core::io::loadSample(name, {freeze});
  if (!result.ok()) {
    showError(this, tr("Cannot open sample"), result.error.headline, result.error.hint, result.error.details);
    Q_EMIT loadFailed(result.error.headline);
    return false;
  }
  setDocument(std::move(result.document));
  return true;
}

void MainWindow::setDocument(std::unique_ptr<core::model::Document> document) {
  document_ = std::move(document);
  if (compareDock_) compareDock_->setDocument(document_.get());
  connect(document_.get(), &core::model::Document::currentChanged, this, &MainWindow::refreshView);
  selected_ = core::model::kNoNode;
  refreshView();
  setWindowTitle(QStringLiteral("%1 — Graft").arg(document_->displayName()));
  Q_EMIT documentOpened();
}

void MainWindow::refreshView() {
  const auto rev = document_->current();
  view_ = std::make_unique<core::model::GraphView>(core::model::GraphView::build(*rev));
  irView_->setRevisionText(rev->irText(), view_.get());
  moduleTree_->setView(view_.get());
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

void MainWindow::selectNode(NodeId id) {
  selected_ = id;
  moduleTree_->selectNode(id);
  irView_->highlightNode(id);
  Q_EMIT selectionChanged(id);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.front().isLocalFile()) openFile(urls.front().toLocalFile());
}

void MainWindow::showAbout() {
  QMessageBox::about(this, tr("About Graft"),
                     tr("<h3>Graft %1</h3><p>See, rewrite and verify PyTorch model graphs.</p>"
                        "<p>Qt %2</p><p>Running a model executes its TorchScript code: open only models you trust.</p>")
                         .arg(QStringLiteral(GRAFT_VERSION), QString::fromLatin1(qVersion())));
}

}  // namespace graft::ui
