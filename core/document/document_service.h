#pragma once
// The one owner of an open model: its Document, the Session that is the only gate through which
// the Document changes, and the session's journal. graft-cli's commands and the window's
// DocumentController both hold one; neither makes a Session of its own (tst_gate checks).
//
// Every change (an edit, rules and passes, a module replacement, keeping nodes in float32, undo,
// redo, a History click, a replayed journal, a save) goes through it and is announced once, after
// the journal has it, as a typed ChangeEvent (change_event.h): what happened, to which revision.
// Questions to the user (unsaved work, replacing a file, trusting a file) are not asked here: the
// owner asks them (the window with dialogs, the CLI with its flags) before calling in.
//
// Lives on one thread (the GUI's or the CLI's main thread); prepareRewrite alone may run on a
// worker, as edit::Session::prepareRewrite may: it reads a revision and a copy of the id source.
#include "core/document/change_event.h"
#include "core/edit/session.h"
#include "core/io/save.h"
#include "core/model/document.h"

#include <QtCore/QObject>
#include <memory>

namespace graft::core::document {

class DocumentService : public QObject {
  Q_OBJECT
 public:
  explicit DocumentService(QObject* parent = nullptr);
  ~DocumentService() override;

  // Installs `document` (loaded elsewhere, e.g. by io::loadFile on a worker) with a new session
  // journaling to `journalPath` (empty: no journal). The open document, if any, is closed first.
  void open(std::unique_ptr<model::Document> document, const QString& journalPath = {});
  // Installs a document with the session that replayed a journal into it (recovery).
  void adopt(std::unique_ptr<model::Document> document, std::unique_ptr<edit::Session> session);
  // Drops the document. `keepJournal`: leave its journal unclosed, for recovery to offer.
  void close(bool keepJournal = false);
  // Ends the session's journal: marked closed (a clean exit: recovery will not offer it) when
  // `markClosed`, else left for recovery, unlocked. The session goes, so nothing writes or closes
  // the journal after this; the document stays (changes are refused until another is opened).
  void endJournal(bool markClosed);

  // A journal's edits replayed into a freshly loaded `document` with a new session journaling to
  // `journalPath` (blocking; any thread): what adopt() then installs (the window's recovery).
  struct Replayed {
    std::unique_ptr<model::Document> document;
    std::unique_ptr<edit::Session> session;
    edit::Session::ReplayResult result;
  };
  static Replayed replayInto(std::unique_ptr<model::Document> document, const QJsonObject& journal,
                             const QString& journalPath);

  const model::Document* document() const { return document_.get(); }
  // The document's id source, for a job that builds a revision to commit here afterwards (the
  // float32 search draws the ids of the nodes it adds). Requires an open document.
  model::NodeIdSource& ids() { return document_->ids(); }
  bool isOpen() const { return document_ != nullptr; }

  // Changes. Each is refused (an error, the document untouched) without an open document.
  edit::EditResult apply(const edit::Edit& edit);
  rewrite::ApplyResult applyRewrite(const QVector<rewrite::Step>& steps);
  // applyRewrite in two halves, for rules run on a worker (edit::Session::prepareRewrite): `ids`
  // is a copy of ids() taken on this thread; commit adopts the ids prepare drew from it.
  static rewrite::ApplyResult prepareRewrite(const model::RevisionPtr& base, const QVector<rewrite::Step>& steps,
                                             model::NodeIdSource& ids);
  bool commitRewrite(const model::RevisionPtr& base, const rewrite::ApplyResult& prepared,
                     const QVector<rewrite::Step>& steps, const model::NodeIdSource& drawn);
  model::RevisionPtr keepInFloat32(const std::unordered_set<model::NodeId>& nodes,
                                   const rewrite::FloatingValues& floating, QString* error,
                                   const rewrite::MixedPrecision& precision = {});
  void undo();
  void redo();
  bool setCurrent(int index);
  // Replays a journal's edits onto the open document (graft-cli replay).
  edit::Session::ReplayResult replay(const QJsonObject& journal);

  // Saving: writes `revision` (blocking; any thread), then, on the owner's thread, markSaved
  // records that the file now holds it (unless it was a copy the user did not ask for).
  static io::SaveResult write(const model::Document& document, const model::RevisionPtr& revision, const QString& path,
                              const model::InputSet* inputs = nullptr);
  void markSaved(int revision, const QString& path);
  // The current revision is not the one last saved (or opened), and there are changes.
  bool isModified() const;
  // Where the last save went (empty before one).
  const QString& savePath() const { return savePath_; }

  // The session's journal (empty path without one) and its JSON.
  QString journalPath() const;
  QJsonObject journal() const;

 Q_SIGNALS:
  void changed(const graft::core::document::ChangeEvent& event);

 private:
  void install(std::unique_ptr<model::Document> document, std::unique_ptr<edit::Session> session);
  // Drops document and session without announcing; `keepJournal` as for close().
  bool drop(bool keepJournal);
  void announce(ChangeEvent::Kind kind, int revision, const QString& path = {});
  template <typename Result>
  bool refuse(Result& result) const;

  std::unique_ptr<model::Document> document_;
  std::unique_ptr<edit::Session> session_;
  int savedIndex_ = 0;  // the revision the file on disk holds (0: as opened)
  QString savePath_;
  int lastAdded_ = -1;  // set by revisionAdded, so the currentChanged that follows says "added"
};

}  // namespace graft::core::document
