#pragma once
// A loaded model and every revision made of it. History is a tree: undo moves to the parent,
// redo to the child undo last left (else the newest child), and an edit after an undo adds a
// sibling, so no revision is lost.
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/model/revision.h"
#include "core/model/saved_record.h"

#include <QtCore/QByteArray>
#include <QtCore/QHash>
#include <QtCore/QObject>
#include <QtCore/QString>
#include <QtCore/QVector>

namespace graft::core::edit { class Session; }

namespace graft::core::model {

struct InputSet;

// A revision's tensor values as one run saw them: "float32 [1, 64, 56, 56]" by value debug name.
using ObservedTypes = QHash<QString, QString>;

class Document : public QObject {
  Q_OBJECT
 public:
  // `sourcePath` is empty for a built-in sample; `sampleName` is empty for a file.
  Document(RevisionPtr original, NodeIdSource ids, QString sourcePath, QString sampleName,
           QByteArray sourceSha256, QObject* parent = nullptr);

  int count() const { return revisions_.size(); }
  RevisionPtr revision(int index) const { return revisions_.at(index).revision; }
  int parentOf(int index) const { return revisions_.at(index).parent; }
  int currentIndex() const { return current_; }
  RevisionPtr current() const { return revisions_.at(current_).revision; }
  RevisionPtr original() const { return revisions_.front().revision; }

  bool canUndo() const { return parentOf(current_) >= 0; }
  bool canRedo() const { return newestChild(current_) >= 0; }
  void undo();
  void redo();
  void setCurrent(int index);

  NodeIdSource& ids() { return ids_; }
  const NodeIdSource& ids() const { return ids_; }
  const QString& sourcePath() const { return sourcePath_; }
  const QString& sampleName() const { return sampleName_; }
  const QByteArray& sourceSha256() const { return sourceSha256_; }
  // "resnet18.pt" or "sample:cnn"
  QString displayName() const;
  // The file format it came from: "torchscript" (also samples) or "pt2" (a torch.export program).
  const QString& format() const { return format_; }
  void setFormat(QString format) { format_ = std::move(format); }
  // Inputs the file itself provides (a .pt2's sample inputs): runs default to them.
  const std::shared_ptr<const model::InputSet>& exampleInputs() const { return exampleInputs_; }
  void setExampleInputs(std::shared_ptr<const model::InputSet> inputs) { exampleInputs_ = std::move(inputs); }
  // A program's flat outputs by their path in its results ("logits", "past.0.1"); empty when the
  // file does not say (TorchScript) or they do not line up with the graph's.
  const QStringList& outputNames() const { return outputNames_; }
  void setOutputNames(QStringList names) { outputNames_ = std::move(names); }
  // Likewise its flat inputs by path in forward's arguments ("x", "d.a", "scale").
  const QStringList& inputNames() const { return inputNames_; }
  void setInputNames(QStringList names) { inputNames_ = std::move(names); }
  // What the file said about its nodes when Graft saved it (null: not a file Graft saved, or its
  // record did not fit the graph).
  const std::shared_ptr<const SavedRecord>& savedRecord() const { return savedRecord_; }
  void setSavedRecord(std::shared_ptr<const SavedRecord> record) { savedRecord_ = std::move(record); }
  // What a run saw of `revision`'s values where its graph records no shape (run/observed_types.h);
  // the diagram labels those edges with it. Null until such a run finished. A cache beside the
  // revisions, not part of them: settable on a const document, safe from any thread.
  std::shared_ptr<const ObservedTypes> observedTypes(const Revision* revision) const;
  void setObservedTypes(const Revision* revision, std::shared_ptr<const ObservedTypes> types) const;

 Q_SIGNALS:
  void revisionAdded(int index);
  void currentChanged(int index);

 private:
  // The one gate: only the Session (edit/session.h) commits, so every change is journaled.
  friend class edit::Session;
  // Adds `revision` as a child of the current one and makes it current. Returns its index.
  int commit(RevisionPtr revision);
  int newestChild(int index) const;
  struct Entry {
    RevisionPtr revision;
    int parent;
    int redoChild = -1;  // the child that undo last left, which redo returns to
  };
  QVector<Entry> revisions_;
  int current_ = 0;
  NodeIdSource ids_;
  QString sourcePath_;
  QString sampleName_;
  QByteArray sourceSha256_;
  QString format_ = QStringLiteral("torchscript");
  std::shared_ptr<const model::InputSet> exampleInputs_;
  QStringList outputNames_, inputNames_;
  std::shared_ptr<const SavedRecord> savedRecord_;
  mutable std::mutex observedMutex_;  // views are built off the GUI thread
  mutable std::unordered_map<const Revision*, std::shared_ptr<const ObservedTypes>> observed_;
};

}  // namespace graft::core::model
