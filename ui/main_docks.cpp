#include "ui/main_docks.h"

#include "ui/canvas/minimap.h"
#include "ui/compare_dock.h"
#include "ui/fit_screen.h"
#include "ui/history_dock.h"
#include "ui/inspector.h"
#include "ui/ir_view.h"
#include "ui/issues_dock.h"
#include "ui/module_tree.h"
#include "ui/profile/profile_dock.h"
#include "ui/rewrite/rewrite_dock.h"

#include <QtCore/QTimer>
#include <QtCore/QVariant>
#include <QtGui/QAction>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QStatusBar>

#include <algorithm>
#include <cmath>

namespace graft::ui {

namespace {
QDockWidget* addDock(QMainWindow* window, const QString& title, const char* objectName, QWidget* content,
                     Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(QLatin1String(objectName));
  dock->setWidget(content);
  window->addDockWidget(area, dock);
  return dock;
}
}  // namespace

QDockWidget* MainDocks::frame(QMainWindow* window, const char* objectName) {
  return window->findChild<QDockWidget*>(QLatin1String(objectName));
}

MainDocks buildMainDocks(QMainWindow* window, canvas::GraphCanvas* canvas) {
  MainDocks d;
  const auto tr = [](const char* text) { return QMainWindow::tr(text); };
  // One column on the right, so that the canvas keeps most of a laptop's screen (at 1366x768 more
  // than half the window): the Inspector on top; Modules, Rewrites, History, IR, Code and the
  // Overview as tabs below it, the module tree in front.
  d.inspector = new Inspector(window);
  auto* inspectorDock =
      addDock(window, tr("Inspector"), "inspectorDock", scrollable(d.inspector), Qt::RightDockWidgetArea);
  d.modules = new ModuleTree(window);
  auto* modulesDock = addDock(window, tr("Modules"), "modulesDock", d.modules, Qt::RightDockWidgetArea);
  d.rewrites = new RewriteDock(window);
  auto* rewritesDock = addDock(window, tr("Rewrites"), "rewritesDock", scrollable(d.rewrites), Qt::RightDockWidgetArea);
  d.history = new HistoryDock(window);
  // Scrolling, as the Inspector and the Rewrites do: the column's minimum height never squeezes
  // the bottom docks when a job opens them.
  auto* historyDock = addDock(window, tr("History"), "historyDock", scrollable(d.history), Qt::RightDockWidgetArea);
  d.ir = new IrView(window);
  auto* irDock = addDock(window, tr("IR"), "irDock", d.ir, Qt::RightDockWidgetArea);
  d.code = new IrView(window);
  d.code->setObjectName(QStringLiteral("codeView"));
  d.code->setPlaceholderText(tr("Open a model to see its graph as Python code."));
  auto* codeDock = addDock(window, tr("Code"), "codeDock", d.code, Qt::RightDockWidgetArea);
  d.minimap = new canvas::Minimap(canvas, window);
  auto* overviewDock = addDock(window, tr("Overview"), "overviewDock", d.minimap, Qt::RightDockWidgetArea);
  window->tabifyDockWidget(modulesDock, rewritesDock);
  window->tabifyDockWidget(rewritesDock, historyDock);
  window->tabifyDockWidget(historyDock, irDock);
  window->tabifyDockWidget(irDock, codeDock);
  window->tabifyDockWidget(codeDock, overviewDock);
  modulesDock->raise();
  sizeDockColumn(window);

  // The bottom area: Profile, Compare and Issues as tabs, hidden until used.
  d.profile = new ProfileDock(window);
  window->addDockWidget(Qt::BottomDockWidgetArea, d.profile);
  d.profile->hide();
  d.compare = new CompareDock(window);
  auto* compareDock = addDock(window, tr("Compare"), "compareDock", scrollable(d.compare), Qt::BottomDockWidgetArea);
  window->tabifyDockWidget(d.profile, compareDock);
  compareDock->hide();
  d.issues = new IssuesDock(window);
  window->addDockWidget(Qt::BottomDockWidgetArea, d.issues);
  window->tabifyDockWidget(compareDock, d.issues);
  d.issues->hide();
  // The bottom docks scroll rather than grow the window; shown, they take what the canvas spares.
  for (QDockWidget* bottom : {static_cast<QDockWidget*>(d.profile), compareDock, static_cast<QDockWidget*>(d.issues)})
    QObject::connect(bottom, &QDockWidget::visibilityChanged, window, [window, bottom](bool visible) {
      if (visible) fitJobDock(window, bottom);
      else QTimer::singleShot(0, window, [window] { unfoldColumnAfterJobs(window); });
    });
  return d;
}

namespace {
const char* const kFoldedProperty = "graftFoldedColumn";  // the right column's docks a job's dock folded away

bool shown(QDockWidget* dock) { return dock->toggleViewAction()->isChecked(); }  // in front or behind a tab

QList<QDockWidget*> docksIn(QMainWindow* window, Qt::DockWidgetArea area) {
  QList<QDockWidget*> docks;
  for (auto* dock : window->findChildren<QDockWidget*>())
    if (shown(dock) && !dock->isFloating() && window->dockWidgetArea(dock) == area) docks << dock;
  return docks;
}

// At laptop widths the right column steps aside while a job's dock is open: the table's numbers
// and the charts need the window's width, and the canvas keeps more than half the window.
void foldColumnForJob(QMainWindow* window) {
  if (window->width() >= kFoldColumnBelow || window->property(kFoldedProperty).isValid()) return;
  const auto column = docksIn(window, Qt::RightDockWidgetArea);
  if (column.isEmpty()) return;
  QStringList names, inFront;
  for (auto* dock : column) {
    names << dock->objectName();
    if (dock->isVisible()) inFront << dock->objectName();
  }
  window->setProperty(kFoldedProperty, QVariantList{names, inFront});
  for (auto* dock : column) dock->hide();
}
}  // namespace

void unfoldColumnAfterJobs(QMainWindow* window) {
  const QVariant folded = window->property(kFoldedProperty);
  if (!folded.isValid() || !docksIn(window, Qt::BottomDockWidgetArea).isEmpty()) return;
  window->setProperty(kFoldedProperty, QVariant());
  const QVariantList lists = folded.toList();
  for (const QString& name : lists.value(0).toStringList())
    if (auto* dock = MainDocks::frame(window, qPrintable(name))) dock->show();
  for (const QString& name : lists.value(1).toStringList())
    if (auto* dock = MainDocks::frame(window, qPrintable(name))) dock->raise();
}

void fitJobDock(QMainWindow* window, QDockWidget* bottom) {
  if (bottom->isFloating()) return;
  foldColumnForJob(window);
  // Where the column stays (a wide window, or shown again by hand), it is at its narrowest while a
  // job's dock is open: the graph keeps its width.
  auto* inspector = MainDocks::frame(window, "inspectorDock");
  int column = 0;
  if (inspector && inspector->isVisible() && !inspector->isFloating()) {
    column = std::min(inspector->width(), kNarrowColumn);
    window->resizeDocks({inspector}, {column}, Qt::Horizontal);
  }
  int left = 0;  // the Tour panel
  for (auto* dock : window->findChildren<QDockWidget*>())
    if (dock->isVisible() && !dock->isFloating() && window->dockWidgetArea(dock) == Qt::LeftDockWidgetArea)
      left = std::max(left, dock->width());
  // The canvas keeps more than half the window (docs/usage.md): the dock gets the height left.
  const int separators = 12, scrollBars = 20;
  const int canvasWidth = std::max(1, window->width() - column - left - separators - scrollBars);
  const int canvasHeight = int(std::ceil(kCanvasShare * window->width() * window->height() / canvasWidth)) + scrollBars;
  const int bars = (window->menuBar() ? window->menuBar()->height() : 0) + window->statusBar()->height();
  const int room = window->height() - bars - separators - canvasHeight;
  window->resizeDocks({bottom}, {std::clamp(room, kJobDockMin, window->height() * 2 / 5)}, Qt::Vertical);
}

void sizeDockColumn(QMainWindow* window) {
  auto* inspector = MainDocks::frame(window, "inspectorDock");
  auto* tabs = MainDocks::frame(window, "modulesDock");
  if (!inspector || !tabs) return;
  // About three tenths of the window across (340 to 460 pixels); the Inspector a third of its
  // height, the tabs the rest.
  const int column = std::clamp(window->width() * 3 / 10, 340, 460);
  window->resizeDocks({inspector}, {column}, Qt::Horizontal);
  window->resizeDocks({inspector, tabs}, {window->height() / 3, window->height() * 2 / 3}, Qt::Vertical);
}

void addTourDock(QMainWindow* window, QWidget* panel) {
  // Alone on the left while a tour runs: the steps stay beside the canvas and the docks they talk about.
  auto* tourDock = addDock(window, QMainWindow::tr("Tour"), "tourDock", panel, Qt::LeftDockWidgetArea);
  // The panel runs the full height, so its buttons stay put when the Compare or Profile dock opens
  // below the canvas (stacked under the panel, those tall docks would not fit a laptop either).
  window->setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  tourDock->hide();
}

}  // namespace graft::ui
