#pragma once
// An editing session on a Document, and the one gate through which a Document changes: node
// edits, rule applications, tour steps, replay and recovery all commit here (Document::commit is
// private to it). It remembers each change with the revision it was applied to and keeps a
// journal file up to date (atomically, after every change) so a crashed session can be replayed. The journal holds the
// source file's path and SHA-256 plus every edit in id-stable form; NodeIds are assigned in graph order on load, so
// replaying by id is stable.
#include "core/edit/edit.h"
#include "core/model/document.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/keep_float32.h"

#include <QtCore/QJsonObject>
#include <QtCore/QLockFile>
#include <QtCore/QMetaObject>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVector>

#include <memory>

namespace graft::core::edit {

class Session {
 public:
  explicit Session(model::Document& document);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  model::Document& document() { return document_; }

  // Applies `edit` to the current revision; on success commits the result (making it current)
  // and journals it. A refusal leaves the document untouched.
  EditResult apply(const Edit& edit);

  // Applies rules and passes as one revision (rewrite::applySteps), commits it and journals the
  // steps: each rule by its full text (rewrite::ruleText) and the match it was limited to, each
  // pass by name, so replay needs no rule library. An error, or a rewrite that changes nothing
  // (ApplyResult::unchanged), leaves the document untouched.
  rewrite::ApplyResult applyRewrite(const QVector<rewrite::Step>& steps);
  // applyRewrite in two halves, for a caller that runs the rules on a worker thread. prepare
  // (any thread) reads `base` and draws node ids from `ids`, a copy of the document's id source
  // taken on the document's thread; it touches nothing else. commit (on the document's thread)
  // commits and journals what prepare made and adopts the ids it drew, unless the current
  // revision is no longer `base`.
  static rewrite::ApplyResult prepareRewrite(const model::RevisionPtr& base, const QVector<rewrite::Step>& steps,
                                             model::NodeIdSource& ids);
  bool commitRewrite(const model::RevisionPtr& base, const rewrite::ApplyResult& prepared,
                     const QVector<rewrite::Step>& steps, const model::NodeIdSource& drawn);

  // Keeps `nodes` in float32 (rewrite/keep_float32.h), stored as `precision` says, as
  // one revision, commits it and journals the nodes with the values found floating, so replay
  // needs no run. Null with `error` set when refused; the document is then untouched.
  model::RevisionPtr keepInFloat32(const std::unordered_set<model::NodeId>& nodes,
                                   const rewrite::FloatingValues& floating, QString* error,
                                   const rewrite::MixedPrecision& precision = {});

  // Commits a revision built by code outside the edit and rewrite vocabularies (tests and
  // benchmarks that shape a graph by hand). It is journaled as made elsewhere: replay stops there.
  int commitBuilt(model::RevisionPtr revision);

  // The journal file, written after every change once set (empty: no journal). It is locked
  // (QLockFile, `<journal>.lock`) while this Session lives, so another Graft never offers to
  // recover it, nor closes it.
  void setJournalPath(const QString& path);
  const QString& journalPath() const { return journalPath_; }
  // Marks the journal closed (a clean exit): recovery will not offer it again.
  bool close();
  QString lastJournalError() const { return journalError_; }

  // The journal's JSON: {"format": "graft-session", "source": {...}, "edits": [{"parent", "edit"},
  // {"parent", "rewrite": {"steps": [{"rule", "only_at"} | {"pass"}]}} or {"parent",
  // "keep_float32": {nodes and the values found floating}}, each with "provenance": what it
  // removed and where its new and altered nodes come from], "current", "closed"}
  QJsonObject toJson(bool closed = false) const;

  // Folder for journals: $GRAFT_SESSION_DIR, else AppDataLocation/sessions.
  static QString sessionDir();
  // A fresh journal path in sessionDir().
  static QString newJournalPath();
  // Journals in sessionDir() not marked closed and not locked by a live Graft, newest first.
  static QStringList unclosedJournals();
  // Whether another live process holds `journal`'s lock.
  static bool isLockedElsewhere(const QString& journal);
  // Reads a journal under the input policy (io/file_policy.h). A journal cut short (a crash or a
  // full disk while it was written) keeps every edit written whole before the cut: the object
  // then holds kTruncatedKey, saying what was dropped, which replay reports as its warning.
  // Refused, before anything is replayed: a file over kMaxJournalBytes, more than kMaxJournalEdits
  // edits, and any "version" but the integer 1 (a missing one too).
  static std::optional<QJsonObject> readJournal(const QString& path, QString* error);
  static constexpr const char* kTruncatedKey = "truncated";
  // A journal is a file Graft reads like any other: bounded so that a hostile or runaway one is
  // refused with a message, not replayed until memory runs out. 100,000 edits on the MLP sample
  // take about 8 MB of journal.
  static constexpr qint64 kMaxJournalBytes = qint64(64) << 20;
  static constexpr int kMaxJournalEdits = 200000;
  static constexpr int kJournalVersion = 1;
  // Marks a journal file closed (recovered or declined) so it is not offered again; refused
  // (false) for a journal a live Graft holds. A journal that is a symlink is never written
  // through: the link itself is removed (its target, wherever it is, is left as it was).
  static bool markClosed(const QString& path);

  // Re-applies a journal's edits to a freshly loaded document of the same source: checks the
  // source (SHA-256, or sample name) and rebuilds the whole revision tree and current position.
  // The session's own journal is written once, after the last edit (linear in the edits). Running
  // out of memory part way is an error naming the edit, never an exception.
  struct ReplayResult {
    bool ok = false;
    bool sourceMismatch = false;
    int applied = 0;
    QString error;
    QString warning;  // what a journal cut short dropped (readJournal), empty otherwise
    // The error as an "edit" error; when ok, the warning (if any) as an "edit" warning.
    model::Diagnostics diagnostics(const QString& journal = {}) const;
  };
  ReplayResult replay(const QJsonObject& journal);

 private:
  struct Record {
    int parent = -1;
    std::optional<Edit> edit;          // an edit, or
    std::optional<QJsonObject> rewrite;  // rules and passes (applyRewrite), or
    std::optional<QJsonObject> keepFloat32;  // nodes kept in float32; none of them: made elsewhere
  };
  // Commits `revision` as made by `record` (its parent is set here) and journals it.
  void commitRecorded(model::RevisionPtr revision, Record record);
  void onRevisionAdded(int index);
  void write();
  static std::optional<QJsonObject> readJournalBounded(const QString& path, QString* error);
  void replayEdits(const QJsonObject& journal, ReplayResult& r);

  model::Document& document_;
  QVector<Record> records_;  // records_[i] made revision i + 1
  QString journalPath_;
  std::unique_ptr<QLockFile> lock_;
  QString journalError_;
  bool committing_ = false;
  bool replaying_ = false;  // replay() writes the journal once, at its end
  QMetaObject::Connection added_, moved_;
};

}  // namespace graft::core::edit
