#pragma once
// The main window's menu bar: File, Edit, View, Rewrite, Run and Help, built from the actions the
// window's parts own (EditActions, ExportActions, HeatmapActions) and the window's own commands.
#include <QtCore/QList>
#include <QtCore/QObject>

class QAction;
class QMenu;

namespace graft::ui {

class MainWindow;

class MainMenus : public QObject {
  Q_OBJECT
 public:
  explicit MainMenus(MainWindow* window);

  // Actions that need an open model are enabled only with one.
  void setModelOpen(bool open);
  void rebuildRecentMenu();
  QAction* presentation() const { return presentation_; }

 private:
  void buildFile();
  void buildView();
  void buildRewrite();
  void buildRun();
  void buildHelp();
  // Shows and raises the dock widget named `objectName`.
  void showDock(const char* objectName);
  MainWindow* window_;
  QMenu* recent_ = nullptr;
  QAction* presentation_ = nullptr;
  QList<QAction*> modelActions_;
};

}  // namespace graft::ui
