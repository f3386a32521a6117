#pragma once
// The docks around the canvas and where they sit: the Modules tree and the Overview (with the
// Tour panel as a tab) on the left; the Inspector over IR, Code, Rewrites and History tabs on the
// right; Profile, Compare and Issues as tabs below. Made once by the main window.
class QDockWidget;
class QMainWindow;

namespace graft::ui {

class CompareDock;
class HistoryDock;
class Inspector;
class IrView;
class IssuesDock;
class ModuleTree;
class ProfileDock;
class RewriteDock;
class TourPanel;
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
// The Tour panel, a hidden tab beside the Modules tree (made after the docks its driver watches).
void addTourDock(QMainWindow* window, TourPanel* panel);

}  // namespace graft::ui
