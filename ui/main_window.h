#pragma once
// Graft's main window: it wires the canvas, the docks and the menus to the DocumentController,
// which owns the open document, and keeps what the window itself shows: the GraphView of the
// current revision and the selection.
#include "core/document/change_event.h"
#include "core/model/diagnostic.h"
#include "core/model/graph_view.h"
#include "ui/canvas/graph_scene.h"
#include "ui/main_docks.h"

#include <QtWidgets/QMainWindow>
#include <memory>

namespace graft::core::model { class Document; }
namespace graft::core::tour { struct Tour; }
class QStackedWidget;

namespace graft::ui {

class DiffView;
class DiffWindow;
class DocumentController;
class EditActions;
class ExportActions;
class FindBar;
class HeatmapActions;
class MainMenus;
class Presentation;
class QuantErrorOverlay;
class StartPage;
class TourDriver;
namespace canvas { class MarkLayers; }

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // The owner of the open document: every open, close, save, change and recovery goes through it.
  DocumentController* controller() const { return controller_; }
  // Open a model (DocumentController::openFile); on failure shows an error box, keeps the
  // current document and returns false.
  bool openFile(const QString& path, bool freeze = true, bool trust = false);
  bool openSample(const QString& name, bool freeze = true);
  // File > Close: asks about unsaved changes, then shows the start page. False when cancelled.
  bool closeDocument();

  // Test hook (graft --script-edits FILE): EditActions::runScript, with {"rules": [...]} entries
  // applied through the Rewrites dock as a user's "apply" would.
  void runScript(const QString& path);
  const core::model::GraphView* view() const { return view_.get(); }
  // True while what a revision shows is built off the GUI thread: timers still fire then, and
  // nothing may change or drop the document meanwhile (the build reads it).
  bool buildingView() const { return buildingView_ > 0; }
  core::model::NodeId selectedNode() const { return selected_; }
  void selectNode(core::model::NodeId id);
  // Ctrl+click: adds `id` to the selection, or drops it when it is already in.
  void pickNode(core::model::NodeId id);
  // The selected node first, then the Ctrl+clicked ones.
  QVector<core::model::NodeId> selection() const;
  // Undo/redo, node edits, Save and Save As (ui/edit_actions.h); File > Export (ui/export_actions.h).
  EditActions* editActions() const { return editActions_; }
  ExportActions* exports() const { return exports_; }
  HeatmapActions* heatmaps() const { return heat_; }

  canvas::GraphCanvas* canvas() const { return canvas_; }
  FindBar* findBar() const { return findBar_; }
  // The diff view (a window of its own): revisions `a` and `b` of the open document (matched by
  // node id), or the current revision against another model file (matched by module path, op and
  // order). nullptr, with a message, when there is nothing to compare or the file cannot be read.
  DiffView* showDiff(int a, int b);
  DiffView* showDiffWithFile(const QString& path);
  DiffView* diffView() const;
  // Run > Quantization Error: the open (quantized) model against `floatPath`, module by module,
  // coloured on the canvas by SQNR when it finishes (quantErrorShown). A model that records no
  // inputs asks for them first, in Compare's dialog. False when it cannot start.
  bool showQuantizationError(const QString& floatPath);
  const MainDocks& docks() const { return docks_; }
  CompareDock* compareDock() const { return docks_.compare; }
  ProfileDock* profileDock() const { return docks_.profile; }
  RewriteDock* rewriteDock() const { return docks_.rewrites; }
  HistoryDock* historyDock() const { return docks_.history; }
  // The Issues dock: every diagnostic the window's jobs produced; a click on one with a node
  // reveals and selects it.
  IssuesDock* issuesDock() const { return docks_.issues; }
  void reportDiagnostics(const core::model::Diagnostics& diagnostics);

  // Guided tours (ui/tour): the panel, what its steps do, and starting one (the Tour dock is
  // shown). `spec` is a built-in tour id or a tour file; a malformed one is shown as an error
  // box with its line and column, and false is returned.
  TourPanel* tourPanel() const { return tourPanel_; }
  TourDriver* tourDriver() const { return tourDriver_; }
  void startTour(const core::tour::Tour& tour);
  bool startTour(const QString& spec);
  // The canvas outlines of the running tour step (the third mark layer).
  void setTourMarks(const QHash<core::model::NodeId, canvas::GraphScene::Mark>& marks);
  // View > Presentation.
  void setPresentation(bool on);
  bool presentation() const;
  Presentation* presentationMode() const { return presentation_.get(); }
  // View > Show Shapes on Edges: where the model records neither shapes nor inputs, asks for the
  // inputs (in Compare's dialog) and shows the view again with the shapes one run finds.
  void showShapes();
  // The start page is shown while no model is open.
  StartPage* startPage() const { return startPage_; }

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
  // The controller announced a change: another document (or none), or a new current revision.
  void showDocument(const core::model::Document* document, const core::document::ChangeEvent& event);
  void forgetDocument();
  // Rebuilds the GraphView, the IR and the code of the current revision off the GUI thread.
  void refreshView();
  // Whether the current revision's edges can show shapes: its graph records them, or a run found them.
  bool shapesKnown() const;
  void revealAndSelect(core::model::NodeId id);

  DocumentController* controller_ = nullptr;
  std::shared_ptr<core::model::GraphView> view_;  // shared with the layout thread
  int viewGeneration_ = 0;  // a view built for an older revision is dropped
  int buildingView_ = 0;
  core::model::NodeId selected_ = core::model::kNoNode;
  const core::model::Document* shownDocument_ = nullptr;  // whose view the canvas shows
  MainDocks docks_;
  canvas::GraphCanvas* canvas_ = nullptr;
  FindBar* findBar_ = nullptr;
  EditActions* editActions_ = nullptr;
  ExportActions* exports_ = nullptr;
  HeatmapActions* heat_ = nullptr;
  MainMenus* menus_ = nullptr;
  DiffWindow* diffWindow_ = nullptr;
  int documentSerial_ = 0;  // counts opened documents: node ids of an older one select nothing
  QSet<core::model::NodeId> picked_;
  std::unique_ptr<canvas::MarkLayers> marks_;  // matches, comparison and tour outlines on the canvas
  QStackedWidget* centreStack_ = nullptr;
  StartPage* startPage_ = nullptr;
  TourDriver* tourDriver_ = nullptr;
  TourPanel* tourPanel_ = nullptr;
  std::unique_ptr<Presentation> presentation_;
  QuantErrorOverlay* quantError_ = nullptr;
  bool dockColumnSized_ = false;  // the right column sized for the window's screen, once
};

}  // namespace graft::ui
