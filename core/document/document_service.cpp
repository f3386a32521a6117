#include "core/document/document_service.h"

namespace graft::core::document {

namespace {
const char* kNoDocument = "no model is open";
}

DocumentService::DocumentService(QObject* parent) : QObject(parent) {}

// The owner decides the journal's fate before it lets go (a journal kept for recovery stays open).
DocumentService::~DocumentService() { drop(/*keepJournal=*/true); }

void DocumentService::open(std::unique_ptr<model::Document> document, const QString& journalPath) {
  if (!document) return close();
  auto session = std::make_unique<edit::Session>(*document);
  if (!journalPath.isEmpty()) session->setJournalPath(journalPath);
  install(std::move(document), std::move(session));
}

void DocumentService::adopt(std::unique_ptr<model::Document> document, std::unique_ptr<edit::Session> session) {
  install(std::move(document), std::move(session));
}

void DocumentService::install(std::unique_ptr<model::Document> document, std::unique_ptr<edit::Session> session) {
  drop(/*keepJournal=*/true);  // the caller decided the old journal's fate (endJournal)
  session_ = std::move(session);
  document_ = std::move(document);
  savedIndex_ = 0;
  savePath_.clear();
  if (!document_) return;
  // Connected after the Session's own connections: the journal has every change before it is
  // announced. A commit adds a revision and then makes it current; the pair is one event.
  connect(document_.get(), &model::Document::revisionAdded, this, [this](int index) { lastAdded_ = index; });
  connect(document_.get(), &model::Document::currentChanged, this, [this](int index) {
    const bool added = index == lastAdded_;
    lastAdded_ = -1;
    announce(added ? ChangeEvent::Kind::RevisionAdded : ChangeEvent::Kind::CurrentMoved, index);
  });
  announce(ChangeEvent::Kind::Opened, document_->currentIndex());
}

bool DocumentService::drop(bool keepJournal) {
  if (session_ && !keepJournal) session_->close();
  session_.reset();
  const bool had = document_ != nullptr;
  if (document_) disconnect(document_.get(), nullptr, this, nullptr);
  document_.reset();
  savedIndex_ = 0;
  savePath_.clear();
  return had;
}

void DocumentService::close(bool keepJournal) {
  if (drop(keepJournal)) announce(ChangeEvent::Kind::Closed, -1);
}

void DocumentService::endJournal(bool markClosed) {
  if (session_ && markClosed) session_->close();
  session_.reset();
}

DocumentService::Replayed DocumentService::replayInto(std::unique_ptr<model::Document> document,
                                                      const QJsonObject& journal, const QString& journalPath) {
  Replayed out;
  out.session = std::make_unique<edit::Session>(*document);
  out.session->setJournalPath(journalPath);
  out.result = out.session->replay(journal);
  out.document = std::move(document);
  return out;
}

void DocumentService::announce(ChangeEvent::Kind kind, int revision, const QString& path) {
  Q_EMIT changed(ChangeEvent{kind, revision, path});
}

template <typename Result>
bool DocumentService::refuse(Result& result) const {
  if (session_) return false;
  result.error = QString::fromLatin1(kNoDocument);
  return true;
}

edit::EditResult DocumentService::apply(const edit::Edit& edit) {
  edit::EditResult result;
  if (refuse(result)) return result;
  return session_->apply(edit);
}

rewrite::ApplyResult DocumentService::applyRewrite(const QVector<rewrite::Step>& steps) {
  rewrite::ApplyResult result;
  if (refuse(result)) return result;
  return session_->applyRewrite(steps);
}

rewrite::ApplyResult DocumentService::prepareRewrite(const model::RevisionPtr& base,
                                                     const QVector<rewrite::Step>& steps, model::NodeIdSource& ids) {
  return edit::Session::prepareRewrite(base, steps, ids);
}

bool DocumentService::commitRewrite(const model::RevisionPtr& base, const rewrite::ApplyResult& prepared,
                                    const QVector<rewrite::Step>& steps, const model::NodeIdSource& drawn) {
  return session_ && session_->commitRewrite(base, prepared, steps, drawn);
}

model::RevisionPtr DocumentService::keepInFloat32(const std::unordered_set<model::NodeId>& nodes,
                                                  const rewrite::FloatingValues& floating, QString* error,
                                                  const rewrite::MixedPrecision& precision) {
  if (!session_) {
    if (error) *error = QString::fromLatin1(kNoDocument);
    return nullptr;
  }
  return session_->keepInFloat32(nodes, floating, error, precision);
}

void DocumentService::undo() {
  if (session_) session_->document().undo();
}

void DocumentService::redo() {
  if (session_) session_->document().redo();
}

bool DocumentService::setCurrent(int index) {
  if (!session_ || index < 0 || index >= document_->count()) return false;
  session_->document().setCurrent(index);
  return true;
}

edit::Session::ReplayResult DocumentService::replay(const QJsonObject& journal) {
  edit::Session::ReplayResult result;
  if (refuse(result)) return result;
  return session_->replay(journal);
}

io::SaveResult DocumentService::write(const model::Document& document, const model::RevisionPtr& revision,
                                      const QString& path, const model::InputSet* inputs) {
  return io::saveAs(document, revision, path, inputs);
}

void DocumentService::markSaved(int revision, const QString& path) {
  savedIndex_ = revision;
  savePath_ = path;
  announce(ChangeEvent::Kind::Saved, revision, path);
}

bool DocumentService::isModified() const {
  return document_ && document_->count() > 1 && document_->currentIndex() != savedIndex_;
}

QString DocumentService::journalPath() const { return session_ ? session_->journalPath() : QString(); }

QJsonObject DocumentService::journal() const { return session_ ? session_->toJson() : QJsonObject(); }

}  // namespace graft::core::document
