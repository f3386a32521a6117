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
#include "ui/tour/tour_panel.h"

#include <QtWidgets/QDockWidget>
#include <QtWidgets/QMainWindow>

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
  // The right column: the inspector on top; IR, Code, Rewrites and History share the space below.
  d.ir = new IrView(window);
  auto* irDock = addDock(window, tr("IR"), "irDock", d.ir, Qt::RightDockWidgetArea);
  d.code = new IrView(window);
  d.code->setObjectName(QStringLiteral("codeView"));
  d.code->setPlaceholderText(tr("Open a model to see its graph as Python code."));
  auto* codeDock = addDock(window, tr("Code"), "codeDock", d.code, Qt::RightDockWidgetArea);
  window->tabifyDockWidget(irDock, codeDock);
  d.inspector = new Inspector(window);
  auto* inspectorDock = addDock(window, tr("Inspector"), "inspectorDock", scrollable(d.inspector), Qt::RightDockWidgetArea);
  window->resizeDocks({irDock, inspectorDock}, {420, 420}, Qt::Horizontal);
  d.rewrites = new RewriteDock(window);
  auto* rewritesDock = addDock(window, tr("Rewrites"), "rewritesDock", scrollable(d.rewrites), Qt::RightDockWidgetArea);
  d.history = new HistoryDock(window);
  auto* historyDock = addDock(window, tr("History"), "historyDock", d.history, Qt::RightDockWidgetArea);
  window->tabifyDockWidget(irDock, rewritesDock);
  window->tabifyDockWidget(rewritesDock, historyDock);
  irDock->raise();

  // The left column: modules over the overview; the Tour panel is a tab beside the modules.
  d.modules = new ModuleTree(window);
  auto* modulesDock = addDock(window, tr("Modules"), "modulesDock", d.modules, Qt::LeftDockWidgetArea);
  d.minimap = new canvas::Minimap(canvas, window);
  auto* overviewDock = addDock(window, tr("Overview"), "overviewDock", d.minimap, Qt::LeftDockWidgetArea);
  window->resizeDocks({modulesDock}, {300}, Qt::Horizontal);
  window->resizeDocks({modulesDock, overviewDock}, {600, 220}, Qt::Vertical);

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
  // The bottom docks scroll rather than grow the window; shown, they take two fifths of it.
  for (QDockWidget* bottom : {static_cast<QDockWidget*>(d.profile), compareDock, static_cast<QDockWidget*>(d.issues)})
    QObject::connect(bottom, &QDockWidget::visibilityChanged, window, [window, bottom](bool visible) {
      if (visible && bottom->height() < window->height() / 3) window->resizeDocks({bottom}, {window->height() * 2 / 5}, Qt::Vertical);
    });
  return d;
}

void addTourDock(QMainWindow* window, TourPanel* panel) {
  auto* tourDock = addDock(window, QMainWindow::tr("Tour"), "tourDock", panel, Qt::LeftDockWidgetArea);
  window->tabifyDockWidget(MainDocks::frame(window, "modulesDock"), tourDock);
  tourDock->hide();
}

}  // namespace graft::ui
