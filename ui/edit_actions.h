#pragma once
// The editing commands of the main window as QActions (Undo, Redo, Delete, Insert op…, Replace
// op…, Edit value…, Save, Save As…) acting on the selected node (ui/selection.h), so menus, the
// Modules tree and the canvas can all share them. Every change goes through the DocumentController.
#include "core/edit/edit.h"
#include "ui/workbench.h"

#include <QtCore/QObject>
#include <functional>

class QAction;
class QMenu;

namespace graft::ui {

class DocumentController;
namespace canvas { class GraphCanvas; }

class EditActions : public QObject {
  Q_OBJECT
 public:
  // `parts`: the window's (its controller, selection, shown view and status bar).
  EditActions(const Workbench& parts, QObject* parent);

  QAction* undo = nullptr;
  QAction* redo = nullptr;
  QAction* deleteNode = nullptr;
  QAction* insertOp = nullptr;
  QAction* replaceOp = nullptr;
  QAction* editValue = nullptr;
  QAction* save = nullptr;    // Ctrl+S: where the last save went, else asks (never over the input unasked)
  QAction* saveAs = nullptr;
  // The node actions, for context menus.
  QList<QAction*> nodeActions() const;
  void fillEditMenu(QMenu* menu) const;
  // The node actions as the Modules tree's context menu, and on a right-clicked canvas box (which
  // is selected first).
  void addContextMenus(canvas::GraphCanvas* canvas, QWidget* modules);

  // Applies `edit` to the current revision; a refusal is shown in the status bar (and a message
  // box when `interactive`). Returns whether it was applied.
  bool applyEdit(const core::edit::Edit& edit, bool interactive = true);

  // Test hook (graft --script-edits FILE): applies the edits of a JSON array one per event-loop
  // turn, printing "script-edit N" on stdout after each is journaled, then "script-done". An
  // entry {"rules": [ID, ...]} is handed to `rewrite` (the Rewrites dock), which says whether a
  // revision was made.
  void runScript(const QString& path, std::function<bool(const QStringList& ruleIds)> rewrite = {});

 Q_SIGNALS:
  void editRefused(const QString& message);
  // Refused edits, for the Issues dock.
  void diagnosticsReported(const core::model::Diagnostics& diagnostics);

 private:
  void updateEnabled();
  const Workbench& parts_;
  DocumentController* controller_;
};

}  // namespace graft::ui
