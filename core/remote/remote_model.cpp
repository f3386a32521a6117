#include "core/remote/remote_model.h"

#include "core/io/pt2_export.h"
#include "core/io/save.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonObject>
#include <QtCore/QTemporaryDir>
#include <deque>
#include <mutex>

namespace graft::core::remote {

namespace {
// `revision` written by `save` (to the path it is given; empty, or the save's error) to a
// temporary file in `format`, and read back.
std::optional<RemoteModel> savedAs(const model::RevisionPtr& revision, const QString& format,
                                   const std::function<QString(const QString& path)>& save, QString* error) {
  RemoteModel m;
  m.revision = revision;
  m.format = format;
  QTemporaryDir dir;
  if (!dir.isValid()) {
    *error = QStringLiteral("cannot make a temporary folder for the model: %1").arg(dir.errorString());
    return std::nullopt;
  }
  const QString path =
      dir.filePath(m.format == QLatin1String("pt2") ? QStringLiteral("model.pt2") : QStringLiteral("model.pt"));
  if (const QString why = save(path); !why.isEmpty()) {
    *error = QStringLiteral("cannot save the revision to send it: %1").arg(why);
    return std::nullopt;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    *error = QStringLiteral("cannot read the saved revision back: %1").arg(f.errorString());
    return std::nullopt;
  }
  m.bytes = f.readAll();
  m.sha256 = QString::fromLatin1(QCryptographicHash::hash(m.bytes, QCryptographicHash::Sha256).toHex());
  return m;
}
}  // namespace

namespace {
// The last revisions saved to send: a warm job on the same revision (the pooled agent has it)
// skips saving and hashing it again. A revision is immutable, and one document saves it; the weak
// pointer tells a revision from a later one at the same address.
struct SavedEntry {
  std::weak_ptr<const model::Revision> revision;
  const model::Document* document = nullptr;
  RemoteModel model;
};
constexpr size_t kSavedKept = 2;
constexpr qsizetype kSavedKeptBytes = qsizetype(512) << 20;  // a larger model is saved again: memory first
std::mutex savedMutex;
std::deque<SavedEntry> savedKept;

std::optional<RemoteModel> savedBefore(const model::Document& document, const model::RevisionPtr& revision) {
  std::lock_guard lock(savedMutex);
  for (const SavedEntry& e : savedKept)
    if (e.document == &document && e.revision.lock() == revision) return e.model;
  return std::nullopt;
}

void keepSaved(const model::Document& document, const RemoteModel& model) {
  if (model.bytes.size() > kSavedKeptBytes) return;
  std::lock_guard lock(savedMutex);
  savedKept.push_front({model.revision, &document, model});
  while (savedKept.size() > kSavedKept) savedKept.pop_back();
}
}  // namespace

std::optional<RemoteModel> savedForRemote(const model::Document& document, const model::RevisionPtr& revision,
                                          QString* error) {
  if (auto before = savedBefore(document, revision)) return before;
  const QString format =
      document.format() == QLatin1String("pt2") ? QStringLiteral("pt2") : QStringLiteral("torchscript");
  auto saved = savedAs(revision, format, [&](const QString& path) {
    const io::SaveResult saved = io::saveAs(document, revision, path);
    return saved.ok ? QString() : saved.error;
  }, error);
  if (saved) keepSaved(document, *saved);
  return saved;
}

std::optional<RemoteModel> savedProgramForRemote(const model::RevisionPtr& revision,
                                                 const std::vector<c10::IValue>& sampleInputs, QString* error) {
  return savedAs(revision, QStringLiteral("pt2"), [&](const QString& path) {
    const io::Pt2SaveResult saved = io::savePt2Program(revision, path, sampleInputs);
    return saved.ok ? QString() : saved.error;
  }, error);
}

bool sendModel(AgentConnection& connection, const RemoteModel& model, QString* error) {
  const QString shortSha = model.sha256.left(12);
  if (connection.holdsModel(model.sha256)) {  // an earlier job on this agent sent or found it
    connection.say(QStringLiteral("model %1 is cached on the host (the agent has it)").arg(shortSha));
    return true;
  }
  const QJsonObject id{{QStringLiteral("sha256"), model.sha256}, {QStringLiteral("format"), model.format}};
  QJsonObject ask = id;
  ask.insert(QStringLiteral("op"), QStringLiteral("has_model"));
  const auto have = connection.request(ask, {}, QStringLiteral("model check"), error);
  if (!have) return false;
  if (have->header.value(QStringLiteral("have")).toBool()) {
    connection.say(QStringLiteral("model %1 is cached on the host").arg(shortSha));
    connection.noteModelHeld(model.sha256);
    return true;
  }
  connection.say(QStringLiteral("sending the model (%1, %2)").arg(byteCount(model.bytes.size()), shortSha));
  QJsonObject put = id;
  put.insert(QStringLiteral("op"), QStringLiteral("put_model"));
  if (!connection.request(put, model.bytes, QStringLiteral("sending the model"), error)) return false;
  connection.noteModelHeld(model.sha256);
  return true;
}

}  // namespace graft::core::remote
