#pragma once
// The editing commands of the main window as QActions (Undo, Redo, Delete, Insert op…, Replace
// op…, Edit value…, Save As…) acting on MainWindow::selectedNode(), so menus, the Modules tree
// and the canvas can all share them. Owns the editing Session (and its journal) of the open
// document, the History dock, and crash recovery.
#include <functional>
#include "core/edit/edit.h"

#include <QtCore/QObject>
#include <memory>

class QAction;
class QMenu;

namespace graft::core::edit { class Session; }

namespace graft::ui {

class MainWindow;
class HistoryDock;

class EditActions : public QObject {
  Q_OBJECT
 public:
  explicit EditActions(MainWindow* window);
  ~EditActions() override;

  QAction* undo = nullptr;
  QAction* redo = nullptr;
  QAction* deleteNode = nullptr;
  QAction* insertOp = nullptr;
  QAction* replaceOp = nullptr;
  QAction* editValue = nullptr;
  QAction* saveAs = nullptr;
  // The node actions, for context menus.
  QList<QAction*> nodeActions() const;
  void fillEditMenu(QMenu* menu) const;

  core::edit::Session* session() const { return session_.get(); }
  HistoryDock* history() const { return history_; }

  // Applies `edit` to the current revision; a refusal is shown in the status bar (and a message
  // box when `interactive`). Returns whether it was applied.
  bool applyEdit(const core::edit::Edit& edit, bool interactive = true);
  // Saves the current revision; asks before overwriting the opened file (unless `confirmed`).
  bool saveRevisionAs(const QString& path, bool confirmed = false);

  // Before the window replaces its document: closes the journal of the old one.
  void closeSession();
  // After the window opened a document: starts a session with a new journal.
  void startSession();

  // On start: if an unclosed journal with edits exists, asks whether to recover it.
  bool offerRecovery();
  // Opens the journal's model and replays its edits. Returns whether it worked.
  bool recover(const QString& journalPath);

  // Test hook (graft --script-edits FILE): applies the edits of a JSON array one per event-loop
  // turn, printing "script-edit N" on stdout after each is journaled, then "script-done". An
  // entry {"rules": [ID, ...]} is handed to `rewrite` (the Rewrites dock), which says whether a
  // revision was made.
  void runScript(const QString& path, std::function<bool(const QStringList& ruleIds)> rewrite = {});

 Q_SIGNALS:
  void editRefused(const QString& message);
  // Refused edits, failed saves and recoveries, for the Issues dock.
  void diagnosticsReported(const core::model::Diagnostics& diagnostics);

 private:
  void updateEnabled();
  MainWindow* window_;
  std::unique_ptr<core::edit::Session> session_;
  HistoryDock* history_ = nullptr;
};

}  // namespace graft::ui
