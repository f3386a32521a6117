#pragma once
// The window's side of the open document: the dialogs (unsaved work, replacing a file, trusting a
// file), the busy state, and moving heavy work off the GUI thread (ui/document/off_thread.h). The
// document itself, its Session and journal belong to a core::document::DocumentService, which
// this controller holds and graft-cli's commands hold too; every change goes through it, is
// journaled first and announced once, and reaches the views as documentChanged: a const pointer
// they never change, and the ChangeEvent that says what happened.
#include "core/document/document_service.h"
#include "core/edit/edit.h"
#include "core/model/diagnostic.h"
#include "core/io/load.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/keep_float32.h"
#include "ui/unsaved_changes.h"

#include <QtCore/QJsonObject>
#include <QtCore/QObject>

#include <atomic>
#include <functional>
#include <memory>
#include <unordered_set>

class QWidget;

namespace graft::core::edit { class Session; }

namespace graft::ui {

class DocumentController : public QObject {
  Q_OBJECT
 public:
  // `window` parents the questions and messages the controller shows.
  explicit DocumentController(QWidget* window);
  ~DocumentController() override;

  const core::model::Document* document() const { return service_.document(); }
  // A load, save or replay is under way (its event loop turns meanwhile): changes wait.
  bool busy() const { return !busy_.isEmpty(); }

  // Opening and closing. Opening asks about unsaved changes first (Save / Discard / Cancel); a
  // failure is reported (Issues dock, error box, loadFailed) and keeps the open document.
  // A TorchScript file whose __setstate__ would loop or reach outside the process is opened only
  // after the trust question says yes (or with `trust`: File > Open Trusted…).
  bool openFile(const QString& path, bool freeze = true, bool trust = false);
  // Run > Trust This Model: names the ops with outside effects the current revision's runs would
  // call and, after the trust question says yes, lets every revision of the document run them.
  // False when there is nothing to trust or the answer is no.
  bool trustSource();
  bool openSample(const QString& name, bool freeze = true);
  // Abandons the open under way (the dialog's Cancel): the window is usable at once, the open
  // returns false, and the loader runs on detached until it ends (ui/document/abandonable.h).
  void cancelOpen() { cancelOpen_ = true; }
  // File > Close: asks, then drops the document (documentChanged(nullptr)). False when cancelled.
  bool close();
  // Before the document is dropped (quit, close, open another): true when it may go.
  bool mayDropDocument();
  // A clean exit: the journal is marked closed (unless kept for recovery).
  void closeJournal();
  // The desktop session is ending: the journal is kept for recovery, as a crash would leave it,
  // unless a later question about the document is answered otherwise.
  void keepJournalForRecovery();
  // The questions (tests answer them themselves).
  void setUnsavedPrompt(UnsavedPrompt prompt) { unsavedPrompt_ = std::move(prompt); }
  void setOverwritePrompt(std::function<bool(const QString& path)> prompt) { overwritePrompt_ = std::move(prompt); }
  // `what` names what would run ("x.pt would run its own code while it opens: …").
  void setTrustPrompt(std::function<bool(const QString& what)> prompt) { trustPrompt_ = std::move(prompt); }

  // Changes: the only way a revision is made or chosen.
  core::edit::EditResult apply(const core::edit::Edit& edit);
  core::rewrite::ApplyResult applyRewrite(const QVector<core::rewrite::Step>& steps);
  bool keepInFloat32(const std::unordered_set<core::model::NodeId>& nodes,
                     const core::rewrite::FloatingValues& floating, QString* error,
                     const core::rewrite::MixedPrecision& precision = {});
  void undo();
  void redo();
  void setCurrent(int index);

  // Saving. The opened file is never overwritten and no device is written (core/io/file_policy.h);
  // another existing file is replaced only once the overwrite question says yes.
  bool isModified() const;
  // File > Save: to the file the last save wrote, else through the Save As dialog.
  bool save();
  // File > Save Revision As… through the dialog.
  bool saveAsDialog();
  // Saves the current revision to `path`; `confirmed`: the user already agreed to replace it.
  // `asCopy`: a copy the user did not ask for (a tour's "Do it for me"): the document stays
  // modified and later saves do not default to `path`.
  bool saveAs(const QString& path, bool confirmed = false, bool asCopy = false);
  // Where a Save dialog starts: the last save, else "<model>-edited.<ext>" beside the model.
  QString suggestedSavePath() const;

  // The journal of the open document (empty without one) and its JSON.
  QString journalPath() const;
  QJsonObject journal() const;
  // On start: if an unclosed journal with edits exists, asks whether to recover it.
  bool offerRecovery();
  // Opens the journal's model and replays its edits off the GUI thread. Whether it worked.
  bool recover(const QString& journalPath);

 Q_SIGNALS:
  // What happened to the open document (`document`, nullptr once closed): opened, closed, a
  // revision added or made current, saved. Always after the journal has the change.
  void documentChanged(const core::model::Document* document, const core::document::ChangeEvent& event);
  void modifiedChanged(bool modified);
  void diagnosticsReported(const core::model::Diagnostics& diagnostics);
  void loadFailed(const QString& headline);
  void loadCancelled();
  // A line for the status bar (timeout 0: until replaced).
  void message(const QString& text, int timeoutMs);
  // What runs off the GUI thread now ("Opening resnet50.pt…"); empty when idle.
  void busyChanged(const QString& what);

 private:
  // Closes the old journal as the user decided (closeJournal), then hands `document` with its
  // session (null: a new one journaling to a fresh path) to the service, which announces it.
  void install(std::unique_ptr<core::model::Document> document, std::unique_ptr<core::edit::Session> session = nullptr);
  // Loads off the GUI thread (`reportAs`: the file named in a failure), then installs.
  // `retryTrusted`: called instead of reporting a refusal to run code on load, after the user
  // said they trust the file.
  bool openLoaded(const QString& what, const QString& reportAs, const std::function<core::io::LoadResult()>& load,
                  const std::function<bool()>& retryTrusted = {});
  void setBusy(const QString& what);
  // A model that did not open: the Issues dock, an error box and loadFailed.
  void reportLoadFailure(const core::io::LoadError& error, const QString& file);
  // Why a change is refused now (no model, or a job running), empty when it may go.
  QString refusal() const;
  bool mayOverwrite(const QString& path);

  QWidget* window_;
  // The one owner of the document, its session and journal (core/document/document_service.h).
  core::document::DocumentService service_;
  QString busy_;
  bool keepJournal_ = false;   // close without marking the journal closed
  std::atomic<bool> cancelOpen_{false};
  UnsavedPrompt unsavedPrompt_;
  std::function<bool(const QString&)> overwritePrompt_;
  std::function<bool(const QString&)> trustPrompt_;
  bool askTrust(const QString& what);
};

}  // namespace graft::ui
