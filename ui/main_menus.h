#pragma once
// The main window's menu bar: File, Edit, View, Rewrite, Run and Help, built from the actions the
// window's parts own (EditActions, ExportActions, HeatmapActions) and commands those parts carry out.
#include "ui/workbench.h"

#include <QtCore/QList>
#include <QtCore/QObject>

class QAction;
class QMenu;

namespace graft::ui {

class MainMenus : public QObject {
  Q_OBJECT
 public:
  // `parts`: the window's; the menus' commands go to its controller and parts.
  MainMenus(const Workbench& parts, QObject* parent);

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
  const Workbench& parts_;
  QMenu* recent_ = nullptr;
  QAction* presentation_ = nullptr;
  QList<QAction*> modelActions_;
};

}  // namespace graft::ui
