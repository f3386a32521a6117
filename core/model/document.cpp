#include "core/model/document.h"

#include <QtCore/QFileInfo>

namespace graft::core::model {

Document::Document(RevisionPtr original, NodeIdSource ids, QString sourcePath, QString sampleName,
                   QByteArray sourceSha256, QObject* parent)
    : QObject(parent),
      ids_(ids),
      sourcePath_(std::move(sourcePath)),
      sampleName_(std::move(sampleName)),
      sourceSha256_(std::move(sourceSha256)) {
  revisions_.push_back({std::move(original), -1});
}

int Document::commit(RevisionPtr revision) {
  revisions_.push_back({std::move(revision), current_});
  const int index = revisions_.size() - 1;
  revisions_[current_].redoChild = index;
  Q_EMIT revisionAdded(index);
  setCurrent(index);
  return index;
}

int Document::newestChild(int index) const {
  if (revisions_[index].redoChild >= 0) return revisions_[index].redoChild;
  for (int i = revisions_.size() - 1; i > index; --i)
    if (revisions_[i].parent == index) return i;
  return -1;
}

void Document::undo() {
  if (!canUndo()) return;
  const int parent = parentOf(current_);
  revisions_[parent].redoChild = current_;
  setCurrent(parent);
}

void Document::redo() {
  if (canRedo()) setCurrent(newestChild(current_));
}

void Document::setCurrent(int index) {
  if (index < 0 || index >= revisions_.size() || index == current_) return;
  current_ = index;
  Q_EMIT currentChanged(index);
}

QString Document::displayName() const {
  if (!sampleName_.isEmpty()) return QStringLiteral("sample:") + sampleName_;
  return QFileInfo(sourcePath_).fileName();
}

std::shared_ptr<const ObservedTypes> Document::observedTypes(const Revision* revision) const {
  std::lock_guard lock(observedMutex_);
  const auto it = observed_.find(revision);
  return it == observed_.end() ? nullptr : it->second;
}

void Document::setObservedTypes(const Revision* revision, std::shared_ptr<const ObservedTypes> types) const {
  std::lock_guard lock(observedMutex_);
  observed_[revision] = std::move(types);
}

}  // namespace graft::core::model
