#pragma once
// The parts of the main window that its helpers share. MainWindow makes them, fills one Workbench
// and hands it to each helper (menus, edit and export actions, the diff window, tours,
// presentation mode): a helper reaches the document through the controller and acts on the parts
// named here, never on MainWindow, so no helper depends on the window (tst_gate checks that no
// ui/ file but the window's own includes main_window.h). Pointers, not owned; filled before the
// first event reaches a helper.
class QMainWindow;

namespace graft::ui {

class DiffWindow;
class DocumentController;
class EditActions;
class ExportActions;
class FindBar;
class HeatmapActions;
class Presentation;
class QuantErrorOverlay;
class Selection;
class ShownView;
class StartPage;
class TourDriver;
class TourPanel;
struct MainDocks;
namespace canvas { class GraphCanvas; class MarkLayers; }

struct Workbench {
  QMainWindow* window = nullptr;  // parent of dialogs; its status bar, menu bar and dock widgets
  DocumentController* controller = nullptr;
  ShownView* shown = nullptr;     // the current revision as the canvas shows it
  Selection* selection = nullptr;
  canvas::GraphCanvas* canvas = nullptr;
  canvas::MarkLayers* marks = nullptr;
  const MainDocks* docks = nullptr;
  FindBar* findBar = nullptr;
  StartPage* startPage = nullptr;
  EditActions* edits = nullptr;
  ExportActions* exports = nullptr;
  HeatmapActions* heat = nullptr;
  DiffWindow* diffs = nullptr;
  QuantErrorOverlay* quantError = nullptr;
  TourDriver* tourDriver = nullptr;
  TourPanel* tourPanel = nullptr;
  Presentation* presentation = nullptr;
};

}  // namespace graft::ui
