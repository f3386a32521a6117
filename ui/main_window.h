#pragma once
// Graft's main window: menus, the docks around the graph, and the open document.
#include "core/model/graph_view.h"

#include <QtWidgets/QMainWindow>
#include <memory>

namespace graft::core::model { class Document; }

namespace graft::ui {

class CompareDock;
class IrView;
class ModuleTree;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Open a model; on failure shows an error box, keeps the current document and returns false.
  bool openFile(const QString& path, bool freeze = true);
  bool openSample(const QString& name, bool freeze = true);

  core::model::Document* document() const { return document_.get(); }
  const core::model::GraphView* view() const { return view_.get(); }
  core::model::NodeId selectedNode() const { return selected_; }
  void selectNode(core::model::NodeId id);

 Q_SIGNALS:
  void documentOpened();
  void loadFailed(const QString& headline);
  void selectionChanged(core::model::NodeId id);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();
  void rebuildRecentMenu();
  void setDocument(std::unique_ptr<core::model::Document> document);
  void refreshView();
  void showAbout();

  std::unique_ptr<core::model::Document> document_;
  std::unique_ptr<core::model::GraphView> view_;
  core::model::NodeId selected_ = core::model::kNoNode;
  IrView* irView_ = nullptr;
  ModuleTree* moduleTree_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  CompareDock* compareDock_ = nullptr;
};

}  // namespace graft::ui
