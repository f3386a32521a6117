#pragma once
// Graft's main window. It builds the canvas, the docks, the menus and the helpers, fills the
// Workbench they share (ui/workbench.h) and wires their signals; the helpers do the work. The
// public functions below are the entry points graft's main() and the Qt Tests use, each a call
// into the part that owns it.
#include "core/document/change_event.h"
#include "core/model/diagnostic.h"
#include "core/model/graph_view.h"
#include "ui/canvas/graph_scene.h"
#include "ui/main_docks.h"
#include "ui/workbench.h"

#include <QtWidgets/QMainWindow>
#include <memory>

namespace graft::core::model { class Document; }
namespace graft::core::tour { struct Tour; }
class QStackedWidget;

namespace graft::ui {

class DiffView;
class MainMenus;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // The parts the helpers share (a tour's autoplay is handed them too; tests reach the edit and
  // export actions, the History and Issues docks, the tour panel and the start page here).
  const Workbench& parts() const { return parts_; }
  // The owner of the open document: every open, close, save, change and recovery goes through it.
  DocumentController* controller() const { return parts_.controller; }
  // Open a model (DocumentController::openFile); on failure shows an error box, keeps the
  // current document and returns false.
  bool openFile(const QString& path, bool freeze = true, bool trust = false);
  bool openSample(const QString& name, bool freeze = true);
  // File > Close: asks about unsaved changes, then shows the start page. False when cancelled.
  bool closeDocument();

  // Test hook (graft --script-edits FILE): EditActions::runScript, with {"rules": [...]} entries
  // applied through the Rewrites dock as a user's "apply" would.
  void runScript(const QString& path);
  // The current revision's view (ShownView), and whether one is being built.
  const core::model::GraphView* view() const;
  bool buildingView() const;
  // The selection (ui/selection.h): the selected node, Ctrl+click picks, and both in order.
  core::model::NodeId selectedNode() const;
  void selectNode(core::model::NodeId id);
  void pickNode(core::model::NodeId id);
  QVector<core::model::NodeId> selection() const;
  canvas::GraphCanvas* canvas() const { return parts_.canvas; }
  // The diff window (ui/diff/diff_window.h): revisions `a` and `b`, or the current revision
  // against another model file. nullptr, with a message, when there is nothing to compare.
  DiffView* showDiff(int a, int b);
  DiffView* showDiffWithFile(const QString& path);
  DiffView* diffView() const;
  // Run > Quantization Error (QuantErrorOverlay::startForOpen); quantErrorShown follows.
  bool showQuantizationError(const QString& floatPath);
  CompareDock* compareDock() const { return docks_.compare; }
  ProfileDock* profileDock() const { return docks_.profile; }
  RewriteDock* rewriteDock() const { return docks_.rewrites; }
  void reportDiagnostics(const core::model::Diagnostics& diagnostics);

  // Guided tours (ui/tour): starting one (TourPanel::begin).
  void startTour(const core::tour::Tour& tour);
  bool startTour(const QString& spec);
  // View > Presentation.
  void setPresentation(bool on);
  bool presentation() const;
  // View > Show Shapes on Edges (ShownView::showShapes).
  void showShapes();

 Q_SIGNALS:
  // The quantization error is on the canvas, or failed (reported to the Issues dock).
  void quantErrorShown();
  void documentOpened();
  void loadFailed(const QString& headline);
  void selectionChanged(core::model::NodeId id);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  void connectDocks();
  void connectSelection();
  void connectJobs();
  // The controller announced a change: another document (or none), or a new current revision.
  void showDocument(const core::model::Document* document, const core::document::ChangeEvent& event);
  void revealAndSelect(core::model::NodeId id);

  Workbench parts_;
  MainDocks docks_;
  MainMenus* menus_ = nullptr;
  int documentSerial_ = 0;  // counts opened documents: node ids of an older one select nothing
  std::unique_ptr<canvas::MarkLayers> marks_;  // matches, comparison and tour outlines on the canvas
  std::unique_ptr<Presentation> presentation_;
  QStackedWidget* centreStack_ = nullptr;
  bool dockColumnSized_ = false;  // the right column sized for the window's screen, once
};

}  // namespace graft::ui
