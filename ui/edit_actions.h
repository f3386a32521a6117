#pragma once
// The editing commands of the main window as QActions (Undo, Redo, Delete, Insert op…, Replace
// op…, Edit value…, Save As…) acting on MainWindow::selectedNode(), so menus, the Modules tree
// and the canvas can all share them. Owns the editing Session (and its journal) of the open
// document, the History dock, and crash recovery.
#include <functional>
#include "core/edit/edit.h"
#include "ui/unsaved_changes.h"

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
  QAction* save = nullptr;    // Ctrl+S: where the last save went, else asks (never over the input unasked)
  QAction* saveAs = nullptr;
  // The node actions, for context menus.
  QList<QAction*> nodeActions() const;
  void fillEditMenu(QMenu* menu) const;

  core::edit::Session* session() const { return session_.get(); }
  HistoryDock* history() const { return history_; }

  // Applies `edit` to the current revision; a refusal is shown in the status bar (and a message
  // box when `interactive`). Returns whether it was applied.
  bool applyEdit(const core::edit::Edit& edit, bool interactive = true);
  // Saves the current revision; the opened file itself is never overwritten (core/io/file_policy.h).
  bool saveRevisionAs(const QString& path, bool confirmed = false);
  // File > Save: to the file the last save wrote, else through the Save As dialog. True when saved.
  bool saveCurrent();
  // Whether the current revision differs from the model as opened or last saved.
  bool isModified() const;
  // Before the open document is dropped (quit, close, open another): true when it may go. Asks
  // Save / Discard / Cancel when there are unsaved changes; Cancel answers false.
  bool mayDropDocument();
  // The desktop session is ending (logout, shutdown): the journal is kept for recovery, as a crash
  // would leave it, unless a later question about the document is answered otherwise.
  void keepJournalForRecovery() { keepJournal_ = isModified(); }
  // The question mayDropDocument asks (tests answer it themselves).
  void setUnsavedPrompt(UnsavedPrompt prompt) { prompt_ = std::move(prompt); }

  // Before the window replaces its document: closes the journal of the old one (unless the
  // answer to the unsaved-changes question was to keep it for recovery).
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
  // The document became modified or unmodified (the window's title mark).
  void modifiedChanged(bool modified);
  // Refused edits, failed saves and recoveries, for the Issues dock.
  void diagnosticsReported(const core::model::Diagnostics& diagnostics);

 private:
  void updateEnabled();
  // Where a Save dialog starts: the last save, else "<model>-edited.<ext>" beside the model.
  QString suggestedSavePath() const;
  MainWindow* window_;
  std::unique_ptr<core::edit::Session> session_;
  HistoryDock* history_ = nullptr;
  int savedIndex_ = 0;        // the revision that matches the file on disk (0: as opened)
  QString savePath_;          // where Save writes (set by Save As)
  bool keepJournal_ = false;  // close without marking the journal closed
  UnsavedPrompt prompt_;
};

}  // namespace graft::ui
