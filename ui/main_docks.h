#pragma once
// The docks around the canvas and where they sit: one column on the right, the Inspector over
// Modules, Rewrites, History, IR, Code and Overview tabs; Profile, Compare and Issues as tabs
// below, hidden until a job starts; the Tour panel on the left while a tour runs. Made once by
// the main window.
class QDockWidget;
class QMainWindow;
class QWidget;

namespace graft::ui {

class CompareDock;
class HistoryDock;
class Inspector;
class IrView;
class IssuesDock;
class ModuleTree;
class ProfileDock;
class RewriteDock;
namespace canvas { class GraphCanvas; class Minimap; }

struct MainDocks {
  IrView* ir = nullptr;
  IrView* code = nullptr;  // the graph as Python (fx's graph_module.code)
  Inspector* inspector = nullptr;
  ModuleTree* modules = nullptr;
  canvas::Minimap* minimap = nullptr;
  ProfileDock* profile = nullptr;
  RewriteDock* rewrites = nullptr;
  HistoryDock* history = nullptr;
  CompareDock* compare = nullptr;
  IssuesDock* issues = nullptr;

  // The dock widget holding a named one ("rewritesDock", "compareDock", "tourDock", …).
  static QDockWidget* frame(QMainWindow* window, const char* objectName);
};

MainDocks buildMainDocks(QMainWindow* window, canvas::GraphCanvas* canvas);
// Gives the right column its default width and split for the window's size (again once shown,
// when the window knows its screen).
void sizeDockColumn(QMainWindow* window);
// A job's dock (Compare, Profile, Issues) opened at the bottom: below kFoldColumnBelow pixels
// across, the right column steps aside until the job's docks close (unfoldColumnAfterJobs); in a
// wider window it is at its narrowest. The dock is as high as leaves the canvas more than half
// the window, but never so low that its charts or first rows are cut.
void fitJobDock(QMainWindow* window, QDockWidget* bottom);
// Brings back the column a job's dock folded away, once no job's dock is open.
void unfoldColumnAfterJobs(QMainWindow* window);
constexpr int kFoldColumnBelow = 1500;
constexpr int kNarrowColumn = 340;
constexpr double kCanvasShare = 0.52;
constexpr int kJobDockMin = 260;  // the Profile charts whole and three Compare rows
// The Tour panel, hidden on the left until a tour starts (made after the docks its driver watches).
void addTourDock(QMainWindow* window, QWidget* panel);

}  // namespace graft::ui
