#pragma once
// Graft's main window: menus, the docks around the graph, and the open document.
#include "core/model/diagnostic.h"
#include "core/model/graph_view.h"
#include "ui/canvas/graph_scene.h"

#include <QtWidgets/QMainWindow>
#include <memory>

namespace graft::core::model { class Document; }
namespace graft::core::tour { struct Tour; }
class QStackedWidget;

namespace graft::ui {

class FindBar;
class Inspector;
class EditActions;
class CompareDock;
class DiffView;
class DiffWindow;
class IrView;
class IssuesDock;
class ModuleTree;
class ProfileDock;
class RewriteDock;
class StartPage;
class TourDriver;
class TourPanel;
class Presentation;
namespace canvas { class GraphCanvas; class MarkLayers; class Minimap; }

class QuantErrorOverlay;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Open a model; on failure shows an error box, keeps the current document and returns false.
  bool openFile(const QString& path, bool freeze = true);
  bool openSample(const QString& name, bool freeze = true);
  // File > Close: asks about unsaved changes (Save / Discard / Cancel), then shows the start
  // page. False when cancelled.
  bool closeDocument();

  core::model::Document* document() const { return document_.get(); }
  // Test hook (graft --script-edits FILE): EditActions::runScript, with {"rules": [...]} entries
  // applied through the Rewrites dock as a user's "apply" would.
  void runScript(const QString& path);
  const core::model::GraphView* view() const { return view_.get(); }
  core::model::NodeId selectedNode() const { return selected_; }
  void selectNode(core::model::NodeId id);
  // Ctrl+click: adds `id` to the selection, or drops it when it is already in.
  void pickNode(core::model::NodeId id);
  // The selected node first, then the Ctrl+clicked ones.
  QVector<core::model::NodeId> selection() const;
  // Undo/redo, node edits, Save As, history and recovery (ui/edit_actions.h).
  EditActions* editActions() const { return editActions_; }

  canvas::GraphCanvas* canvas() const { return canvas_; }
  // The diff view (a window of its own): revisions `a` and `b` of the open document (matched by
  // node id), or the current revision against another model file (matched by module path, op and
  // order). nullptr, with a message, when there is nothing to compare or the file cannot be read.
  DiffView* showDiff(int a, int b);
  DiffView* showDiffWithFile(const QString& path);
  // Run > Quantization Error: the open (quantized) model against `floatPath`, module by module,
  // coloured on the canvas by SQNR when it finishes (quantErrorShown). A model that records no
  // inputs asks for them first, in Compare's dialog. False when it cannot start.
  bool showQuantizationError(const QString& floatPath);
  DiffView* diffView() const;
  CompareDock* compareDock() const { return compareDock_; }
  ProfileDock* profileDock() const { return profileDock_; }
  RewriteDock* rewriteDock() const { return rewriteDock_; }
  // The Issues dock: every diagnostic the window's jobs produced; a click on one with a node
  // reveals and selects it.
  IssuesDock* issuesDock() const { return issuesDock_; }
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
  // The start page is shown while no model is open.
  StartPage* startPage() const { return startPage_; }
  // Exports of what the canvas shows (SVG, PNG) and of the flat op graph (DOT); false with a
  // message in the status bar on failure.
  bool exportSvg(const QString& path);
  bool exportPng(const QString& path);
  bool exportDot(const QString& path);
  // One self-contained HTML page (core/report/html_report): the diagram as shown with the
  // original beside it when the current revision differs, facts, history, the differences, the
  // last compare and profile.
  bool exportReport(const QString& path);

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
  void buildMenus();
  void rebuildRecentMenu();
  void setDocument(std::unique_ptr<core::model::Document> document);
  void refreshView();
  // Outlines on the canvas what revision `index` changed relative to its parent.
  void showChangesOf(int index);
  void showAbout();
  // Outlines the last comparison's nodes; `reveal` selects its first divergence or failing node.
  void showDivergence(bool reveal);
  void exportDialog(const QString& filter, const QString& suffix, bool (MainWindow::*write)(const QString&));

  std::unique_ptr<core::model::Document> document_;
  std::shared_ptr<core::model::GraphView> view_;  // shared with the layout thread
  core::model::NodeId selected_ = core::model::kNoNode;
  const core::model::Document* shownDocument_ = nullptr;  // whose view the canvas shows
  IrView* irView_ = nullptr;
  IrView* codeView_ = nullptr;  // the graph as Python (fx's graph_module.code)
  ModuleTree* moduleTree_ = nullptr;
  canvas::GraphCanvas* canvas_ = nullptr;
  canvas::Minimap* minimap_ = nullptr;
  Inspector* inspector_ = nullptr;
  FindBar* findBar_ = nullptr;
  EditActions* editActions_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  ProfileDock* profileDock_ = nullptr;
  QAction* heatAction_ = nullptr;
  CompareDock* compareDock_ = nullptr;
  DiffWindow* diffWindow_ = nullptr;  // the Diff window, made on first use
  RewriteDock* rewriteDock_ = nullptr;
  IssuesDock* issuesDock_ = nullptr;
  int documentSerial_ = 0;  // counts opened documents: node ids of an older one select nothing
  QSet<core::model::NodeId> picked_;
  std::unique_ptr<canvas::MarkLayers> marks_;  // matches, comparison and tour outlines on the canvas
  QStackedWidget* centreStack_ = nullptr;
  StartPage* startPage_ = nullptr;
  TourDriver* tourDriver_ = nullptr;
  TourPanel* tourPanel_ = nullptr;
  std::unique_ptr<Presentation> presentation_;
  QAction* presentationAction_ = nullptr;
  QList<QAction*> modelActions_;  // need an open model: disabled without one
  QuantErrorOverlay* quantError_ = nullptr;
};

}  // namespace graft::ui
