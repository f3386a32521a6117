#include "core/edit/session.h"

#include "core/io/atomic_write.h"
#include "core/model/job_guard.h"
#include "core/rewrite/rule_parser.h"

#include <QtCore/QDateTime>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QLoggingCategory>
#include <QtCore/QStandardPaths>
#include <QtCore/QUuid>

namespace graft::core::edit {

Q_LOGGING_CATEGORY(lcSession, "graft.edit.session")

Session::Session(model::Document& document) : document_(document) {
  added_ = QObject::connect(&document_, &model::Document::revisionAdded, [this](int i) { onRevisionAdded(i); });
  moved_ = QObject::connect(&document_, &model::Document::currentChanged, [this](int) { write(); });
}

Session::~Session() {
  QObject::disconnect(added_);
  QObject::disconnect(moved_);
}

void Session::onRevisionAdded(int index) {
  if (committing_) return;  // apply() records its own
  while (records_.size() < index)
    records_.push_back({document_.parentOf(records_.size() + 1), std::nullopt, std::nullopt});
}

void Session::commitRecorded(model::RevisionPtr revision, Record record) {
  record.parent = document_.currentIndex();
  committing_ = true;
  records_.push_back(std::move(record));
  document_.commit(std::move(revision));  // writes the journal through currentChanged
  committing_ = false;
}

int Session::commitBuilt(model::RevisionPtr revision) {
  commitRecorded(std::move(revision), {-1, std::nullopt, std::nullopt, std::nullopt});
  return document_.currentIndex();
}

EditResult Session::apply(const Edit& edit) {
  EditResult r = edit::apply(edit, *document_.current(), document_.ids());
  if (r.ok()) commitRecorded(r.revision, {-1, edit, std::nullopt, std::nullopt});
  return r;
}

namespace {
QJsonObject rewriteToJson(const QVector<rewrite::Step>& steps) {
  QJsonArray out;
  for (const auto& step : steps) {
    if (!step.pass.isEmpty()) {
      out.append(QJsonObject{{"pass", step.pass}});
      continue;
    }
    QJsonObject o{{"rule", rewrite::ruleText(step.rule)}, {"id", step.rule.id}};
    if (step.onlyAt != model::kNoNode) o.insert(QStringLiteral("only_at"), QString::number(step.onlyAt));
    out.append(o);
  }
  return {{"steps", out}};
}

std::optional<QVector<rewrite::Step>> rewriteFromJson(const QJsonObject& json, QString* error) {
  QVector<rewrite::Step> steps;
  for (const auto& v : json.value(QLatin1String("steps")).toArray()) {
    const QJsonObject o = v.toObject();
    if (o.contains(QLatin1String("pass"))) {
      steps.push_back(rewrite::Step::ofPass(o.value(QLatin1String("pass")).toString()));
      continue;
    }
    const auto parsed = rewrite::parseRule(o.value(QLatin1String("rule")).toString(), QStringLiteral("journal"));
    if (!parsed.ok()) {
      *error = QStringLiteral("rule %1: %2").arg(o.value(QLatin1String("id")).toString(), parsed.error.toString());
      return std::nullopt;
    }
    const model::NodeId at = o.value(QLatin1String("only_at")).toString().toULongLong();
    steps.push_back(at == model::kNoNode ? rewrite::Step::ofRule(parsed.rule)
                                         : rewrite::Step::ofRuleAt(parsed.rule, at));
  }
  if (steps.isEmpty()) {
    *error = QStringLiteral("a rewrite without steps");
    return std::nullopt;
  }
  return steps;
}
}  // namespace

rewrite::ApplyResult Session::applyRewrite(const QVector<rewrite::Step>& steps) {
  const auto base = document_.current();
  auto ids = document_.ids();
  rewrite::ApplyResult r = prepareRewrite(base, steps, ids);
  if (r.ok()) commitRewrite(base, r, steps, ids);
  return r;
}

rewrite::ApplyResult Session::prepareRewrite(const model::RevisionPtr& base, const QVector<rewrite::Step>& steps,
                                             model::NodeIdSource& ids) {
  return rewrite::applySteps(*base, steps, ids);
}

bool Session::commitRewrite(const model::RevisionPtr& base, const rewrite::ApplyResult& prepared,
                            const QVector<rewrite::Step>& steps, const model::NodeIdSource& drawn) {
  if (!prepared.ok() || base != document_.current()) return false;
  document_.ids().advanceTo(drawn.last());
  // Nothing changed: no revision, and the document stays as saved. A replayed journal keeps the
  // revisions it recorded, so that later records still find their parents.
  if (prepared.unchanged && !replaying_) return true;
  commitRecorded(prepared.revision, {-1, std::nullopt, rewriteToJson(steps), std::nullopt});
  return true;
}

model::RevisionPtr Session::keepInFloat32(const std::unordered_set<model::NodeId>& nodes,
                                          const rewrite::FloatingValues& floating, QString* error,
                                          const rewrite::MixedPrecision& precision) {
  auto revision =
      rewrite::keepInFloat32(*document_.current(), nodes, floating, document_.ids(), error, precision);
  if (revision)
    commitRecorded(revision,
                   {-1, std::nullopt, std::nullopt, rewrite::keepFloat32ToJson(nodes, floating, precision)});
  return revision;
}

void Session::setJournalPath(const QString& path) {
  lock_.reset();
  journalPath_ = path;
  if (!path.isEmpty()) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    lock_ = std::make_unique<QLockFile>(path + QStringLiteral(".lock"));
    lock_->setStaleLockTime(0);  // held as long as this process lives, however long that is
    if (!lock_->tryLock(0)) qCWarning(lcSession).noquote() << "cannot lock the session journal" << path;
  }
  write();
}

bool Session::isLockedElsewhere(const QString& journal) {
  QLockFile lock(journal + QStringLiteral(".lock"));
  lock.setStaleLockTime(0);
  if (lock.tryLock(0)) {
    lock.unlock();
    return false;
  }
  // Held: by a live process (another Graft, or this one's own Session for it).
  return lock.error() == QLockFile::LockFailedError;
}

namespace {
// What a change did, as the journal keeps it beside the edit that made it: {"removed": [ids],
// "changed": {"id": {"from": [ids], "altered": bool}}}. Replay derives the same from the edit.
QJsonObject changeToJson(const model::Change& change) {
  QJsonArray removed;
  for (auto id : change.removed) removed.append(QString::number(id));
  QJsonObject changed;
  for (const auto& [id, origin] : change.changed) {
    QJsonArray from;
    for (auto f : origin.from) from.append(QString::number(f));
    changed.insert(QString::number(id), QJsonObject{{"from", from}, {"altered", origin.altered}});
  }
  return {{"removed", removed}, {"changed", changed}};
}
}  // namespace

QJsonObject Session::toJson(bool closed) const {
  QJsonArray edits;
  for (int i = 0; i < records_.size(); ++i) {
    const auto& r = records_[i];
    QJsonObject o = r.rewrite       ? QJsonObject{{"parent", r.parent}, {"rewrite", *r.rewrite}}
                    : r.keepFloat32 ? QJsonObject{{"parent", r.parent}, {"keep_float32", *r.keepFloat32}}
                                    : QJsonObject{{"parent", r.parent},
                                                  {"edit", r.edit ? QJsonValue(edit::toJson(*r.edit)) : QJsonValue()}};
    if (i + 1 < document_.count())
      o.insert(QStringLiteral("provenance"), changeToJson(document_.revision(i + 1)->change()));
    edits.append(o);
  }
  QJsonObject source{{"path", document_.sourcePath()},
                     {"sha256", QString::fromLatin1(document_.sourceSha256())},
                     {"sample", document_.sampleName()},
                     {"frozen", document_.original()->frozen()}};
  return {{"format", "graft-session"}, {"version", 1}, {"source", source}, {"edits", edits},
          {"current", document_.currentIndex()}, {"closed", closed},
          {"updated", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
}

namespace {
// A journal's bytes with every other member before "edits" (QJsonDocument sorts keys, which
// would put the source after the edits): a journal cut short then still says which model it was
// made on, and each edit written whole before the cut can be recovered.
QByteArray journalBytes(const QJsonObject& journal) {
  QJsonObject head = journal;
  head.remove(QStringLiteral("edits"));
  QByteArray text = QJsonDocument(head).toJson(QJsonDocument::Indented);
  text.truncate(text.lastIndexOf('}'));
  while (!text.isEmpty() && (text.endsWith('\n') || text.endsWith(' '))) text.chop(1);
  text += ",\n    \"edits\": ";
  text += QJsonDocument(journal.value(QStringLiteral("edits")).toArray()).toJson(QJsonDocument::Indented).trimmed();
  text += "\n}\n";
  return text;
}

// The intact part of a journal cut short (a crash or a full disk while it was written): the text
// up to the last edit that ends before the cut, closed, when every member before "edits" is whole.
// One pass over the text, which only tracks strings and nesting. Empty when nothing is salvageable.
struct Salvaged {
  QJsonObject journal;
  int kept = 0;
  bool everyEdit = false;  // the cut came after the edits: none was dropped
};
std::optional<Salvaged> salvageJournal(const QByteArray& text) {
  int depth = 0;
  bool inString = false, escaped = false, editsOpen = false;
  qsizetype keyStart = -1, lastKeyStart = -1, lastKeyEnd = -1, lastEditEnd = -1, editsBracket = -1, editsEnd = -1;
  int kept = 0;
  for (qsizetype i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') {
        inString = false;
        if (depth == 1) { lastKeyStart = keyStart; lastKeyEnd = i; }
      }
      continue;
    }
    switch (c) {
      case '"':
        inString = true;
        keyStart = i + 1;
        break;
      case '{':
      case '[':
        ++depth;
        if (c == '[' && depth == 2 && lastKeyStart >= 0 &&
            text.mid(lastKeyStart, lastKeyEnd - lastKeyStart) == "edits") {
          editsOpen = true;
          editsBracket = i;
        }
        break;
      case '}':
      case ']':
        --depth;
        if (editsOpen && depth == 2 && c == '}') {
          lastEditEnd = i;
          ++kept;
        }
        if (editsOpen && depth == 1 && editsEnd < 0) editsEnd = i;  // the edits array is whole
        if (depth < 0) return std::nullopt;
        break;
      default:
        break;
    }
  }
  if (!editsOpen) return std::nullopt;
  QByteArray whole = editsEnd >= 0 ? text.left(editsEnd + 1) + "}"
                                   : text.left((lastEditEnd >= 0 ? lastEditEnd : editsBracket) + 1) + "]}";
  QJsonParseError pe{};
  const auto doc = QJsonDocument::fromJson(whole, &pe);
  if (pe.error != QJsonParseError::NoError || !doc.isObject()) return std::nullopt;
  return Salvaged{doc.object(), kept, editsEnd >= 0};
}
}  // namespace

void Session::write() {
  if (journalPath_.isEmpty() || replaying_) return;
  QDir().mkpath(QFileInfo(journalPath_).absolutePath());
  const QString why = io::writeAtomically(journalPath_, journalBytes(toJson(false)));
  if (!why.isEmpty()) {
    journalError_ = QStringLiteral("cannot write the session journal %1: %2").arg(journalPath_, why);
    qCWarning(lcSession).noquote() << journalError_;
  }
}

bool Session::close() {
  if (journalPath_.isEmpty()) return true;
  bool ok = false;
  try {
    ok = io::writeAtomically(journalPath_, journalBytes(toJson(true))).isEmpty();
  } catch (const std::bad_alloc&) {  // after a replay ran out of memory: the journal stays as it was
    journalError_ = QStringLiteral("ran out of memory closing the session journal %1").arg(journalPath_);
  }
  lock_.reset();
  return ok;
}

QString Session::sessionDir() {
  const QString env = qEnvironmentVariable("GRAFT_SESSION_DIR");
  if (!env.isEmpty()) return env;
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("sessions"));
}

QString Session::newJournalPath() {
  const QString id = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-")) +
                     QUuid::createUuid().toString(QUuid::Id128).left(8);
  return QDir(sessionDir()).filePath(id + QStringLiteral(".json"));
}

namespace {
// Why `journal` is not of the one version this Graft reads, empty when it is. Only the JSON number
// 1 is: a string "1", null, 0, 2, -1 or no version at all are refused, naming what was found.
QString versionError(const QJsonObject& journal, const QString& path) {
  const QJsonValue version = journal.value(QLatin1String("version"));
  if (version.isDouble() && version.toDouble() == Session::kJournalVersion) return {};
  if (version.isUndefined())
    return QStringLiteral("%1 has no \"version\": Graft reads session journals of version %2 only")
        .arg(path)
        .arg(Session::kJournalVersion);
  const QString found =
      QString::fromUtf8(QJsonDocument(QJsonArray{version}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
  return QStringLiteral("%1 is a session journal of version %2; Graft reads version %3 only")
      .arg(path, found.size() > 40 ? found.left(40) + QStringLiteral("…") : found).arg(Session::kJournalVersion);
}
}  // namespace

std::optional<QJsonObject> Session::readJournal(const QString& path, QString* error) {
  // Parsing a journal near its bound takes a few times its size; no allocation failure leaves here.
  try {
    return readJournalBounded(path, error);
  } catch (const std::bad_alloc&) {
    if (error) *error = QStringLiteral("ran out of memory reading the session journal %1").arg(path);
    return std::nullopt;
  }
}

std::optional<QJsonObject> Session::readJournalBounded(const QString& path, QString* error) {
  // The input policy: a regular file of at most kMaxJournalBytes, never a FIFO, a device or a
  // /proc file.
  QString why;
  const auto bytes = io::readInputFile(path, kMaxJournalBytes, QStringLiteral("journal"), &why);
  if (!bytes) {
    if (error) *error = why;
    return std::nullopt;
  }
  QJsonParseError pe;
  auto doc = QJsonDocument::fromJson(*bytes, &pe);
  QJsonObject journal = doc.object();
  if (pe.error != QJsonParseError::NoError) {
    // Cut short: every edit written whole before the cut is kept, and the journal says what was
    // dropped (replay reports it).
    if (auto salvaged = salvageJournal(*bytes); salvaged && salvaged->journal.contains(QLatin1String("source"))) {
      journal = salvaged->journal;
      journal.insert(
          QLatin1String(kTruncatedKey),
          salvaged->everyEdit
              ? QStringLiteral("the journal %1 is cut short after its last edit: all %2 edit(s) are recovered")
                    .arg(path)
                    .arg(salvaged->kept)
              : QStringLiteral("the journal %1 is cut short inside edit %2: the %3 edit(s) before it are recovered; "
                               "edit %2 and anything written after it are dropped")
                    .arg(path)
                    .arg(salvaged->kept + 1)
                    .arg(salvaged->kept));
      doc = QJsonDocument(journal);
    } else if (salvaged) {
      if (error)
        *error = QStringLiteral("%1 is cut short before it names its model: nothing in it can be recovered").arg(path);
      return std::nullopt;
    }
  }
  if (!doc.isObject() || journal.value(QLatin1String("format")).toString() != QLatin1String("graft-session")) {
    if (error)
      *error = QStringLiteral("%1 is not a Graft session journal%2")
                   .arg(path, pe.error ? QStringLiteral(" (") + pe.errorString() + QLatin1Char(')') : QString());
    return std::nullopt;
  }
  if (QString why = versionError(journal, path); !why.isEmpty()) {
    if (error) *error = why;
    return std::nullopt;
  }
  if (const qsizetype edits = journal.value(QLatin1String("edits")).toArray().size(); edits > kMaxJournalEdits) {
    if (error)
      *error = QStringLiteral("%1 holds %2 edits; Graft replays at most %3 edits of one session")
                   .arg(path)
                   .arg(edits)
                   .arg(kMaxJournalEdits);
    return std::nullopt;
  }
  return journal;
}

bool Session::markClosed(const QString& path) {
  if (isLockedElsewhere(path)) return false;
  // A symlink in the session folder is not Graft's journal to rewrite: writing it would write its
  // target, wherever that is. The link goes; the target is left as it was.
  if (QFileInfo(path).isSymLink()) return QFile::remove(path);
  auto journal = readJournal(path, nullptr);
  if (!journal) return false;
  journal->insert(QStringLiteral("closed"), true);
  journal->remove(QLatin1String(kTruncatedKey));
  return io::writeAtomically(path, journalBytes(*journal)).isEmpty();
}

QStringList Session::unclosedJournals() {
  QStringList out;
  const QDir dir(sessionDir());
  for (const QFileInfo& fi : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Time)) {
    auto j = readJournal(fi.absoluteFilePath(), nullptr);
    if (j && !j->value(QLatin1String("closed")).toBool() && !isLockedElsewhere(fi.absoluteFilePath()))
      out << fi.absoluteFilePath();
  }
  return out;
}

model::Diagnostics Session::ReplayResult::diagnostics(const QString& journal) const {
  if (ok) {
    if (warning.isEmpty()) return {};
    auto w = model::Diagnostic::warning(QStringLiteral("edit"), warning);
    w.file = journal;
    return {w};
  }
  auto d = model::Diagnostic::error(
      QStringLiteral("edit"), error,
      sourceMismatch ? QStringLiteral("replay the session onto the file it was made on") : QString());
  d.file = journal;
  return {d};
}

Session::ReplayResult Session::replay(const QJsonObject& journal) {
  // The journal is written once at the end, not after each replayed edit (which made recovery
  // quadratic in the edits).
  ReplayResult r;
  replaying_ = true;
  try {
    replayEdits(journal, r);
  } catch (const std::bad_alloc&) {
    r.ok = false;
    r.error = QStringLiteral("ran out of memory replaying the session after %1 of its %2 edits")
                  .arg(r.applied).arg(journal.value(QLatin1String("edits")).toArray().size());
  } catch (...) {
    r.ok = false;
    r.error = QStringLiteral("edit %1 of the session failed: %2").arg(r.applied + 1).arg(model::currentExceptionText());
  }
  // An edit that failed part way may have left its record without its revision.
  committing_ = false;
  while (records_.size() >= document_.count()) records_.removeLast();
  replaying_ = false;
  try {
    write();
  } catch (const std::bad_alloc&) {
    journalError_ = QStringLiteral("ran out of memory writing the session journal %1").arg(journalPath_);
  }
  return r;
}

void Session::replayEdits(const QJsonObject& journal, ReplayResult& r) {
  const QJsonObject source = journal.value(QLatin1String("source")).toObject();
  const QString sample = source.value(QLatin1String("sample")).toString();
  if (!sample.isEmpty() || !document_.sampleName().isEmpty()) {
    if (sample != document_.sampleName()) {
      r.sourceMismatch = true;
      r.error = QStringLiteral("the session was made on %1, not on %2")
                    .arg(sample.isEmpty() ? source.value(QLatin1String("path")).toString()
                                          : QStringLiteral("sample:") + sample,
                         document_.displayName());
      return;
    }
  } else if (source.value(QLatin1String("sha256")).toString().toLatin1() != document_.sourceSha256()) {
    r.sourceMismatch = true;
    r.error = QStringLiteral("%1 is not the file the session was made on (SHA-256 %2, expected %3)")
                  .arg(document_.displayName(), QString::fromLatin1(document_.sourceSha256()),
                       source.value(QLatin1String("sha256")).toString());
    return;
  }
  // NodeIds follow the graph as loaded: a frozen and an unfrozen load number nodes differently.
  const bool frozen = source.value(QLatin1String("frozen")).toBool(true);
  if (frozen != document_.original()->frozen()) {
    r.sourceMismatch = true;
    r.error = frozen ? QStringLiteral("the session was made on the frozen model: load it without --no-freeze")
                     : QStringLiteral("the session was made on the unfrozen model: load it with --no-freeze");
    return;
  }
  if (document_.count() != 1) {
    r.error = QStringLiteral("a session replays onto a freshly loaded model only");
    return;
  }
  const QJsonArray edits = journal.value(QLatin1String("edits")).toArray();
  r.warning = journal.value(QLatin1String(kTruncatedKey)).toString();
  for (int i = 0; i < edits.size(); ++i) {
    const QJsonObject rec = edits[i].toObject();
    const int parent = rec.value(QLatin1String("parent")).toInt(-1);
    if (parent < 0 || parent >= document_.count()) {
      r.error = QStringLiteral("edit %1 of the session has a bad parent revision %2").arg(i + 1).arg(parent);
      return;
    }
    if (rec.value(QLatin1String("rewrite")).isObject()) {
      QString error;
      const auto steps = rewriteFromJson(rec.value(QLatin1String("rewrite")).toObject(), &error);
      if (!steps) {
        r.error = QStringLiteral("rewrite %1 of the session: %2").arg(i + 1).arg(error);
        return;
      }
      document_.setCurrent(parent);
      const auto applied = applyRewrite(*steps);
      if (!applied.ok()) {
        r.error = QStringLiteral("rewrite %1 of the session was refused: %2").arg(i + 1).arg(applied.error);
        return;
      }
      ++r.applied;
      continue;
    }
    if (rec.value(QLatin1String("keep_float32")).isObject()) {
      std::unordered_set<model::NodeId> nodes;
      rewrite::FloatingValues floating;
      QString error;
      document_.setCurrent(parent);
      rewrite::MixedPrecision stored;
      if (!rewrite::keepFloat32FromJson(rec.value(QLatin1String("keep_float32")).toObject(), nodes, floating, stored,
                                        &error) ||
          !keepInFloat32(nodes, floating, &error, stored)) {
        r.error = QStringLiteral("float32 nodes %1 of the session: %2").arg(i + 1).arg(error);
        return;
      }
      ++r.applied;
      continue;
    }
    if (!rec.value(QLatin1String("edit")).isObject()) {
      r.error = QStringLiteral("revision %1 of the session was not made by an edit or a rewrite and cannot be replayed")
                    .arg(i + 1);
      return;
    }
    QString error;
    auto edit = fromJson(rec.value(QLatin1String("edit")).toObject(), &error);
    if (!edit) {
      r.error = QStringLiteral("edit %1 of the session: %2").arg(i + 1).arg(error);
      return;
    }
    document_.setCurrent(parent);
    const EditResult applied = apply(*edit);
    if (!applied.ok()) {
      r.error =
          QStringLiteral("edit %1 of the session (%2) was refused: %3").arg(i + 1).arg(describe(*edit), applied.error);
      return;
    }
    ++r.applied;
  }
  // A journal cut short may name a current revision whose edit was dropped: the newest kept one.
  const int current = journal.value(QLatin1String("current")).toInt(document_.count() - 1);
  document_.setCurrent(current >= 0 && current < document_.count() ? current : document_.count() - 1);
  r.ok = true;
}

}  // namespace graft::core::edit
