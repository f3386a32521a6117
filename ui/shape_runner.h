#pragma once
// Shapes on every edge: where the shown revision's graph records none (a TorchScript model, nodes a
// rewrite inserted), one background run on the model's inputs finds them (core/run/observed_types)
// and the document keeps them beside the revision, so the view built next labels its edges.
#include "core/model/document.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QObject>
#include <QtCore/QPointer>

#include <atomic>
#include <functional>
#include <memory>

namespace graft::ui {

class ShapeRunner : public QObject {
  Q_OBJECT
 public:
  explicit ShapeRunner(QObject* parent = nullptr);
  ~ShapeRunner() override;

  // Starts a run for the current revision of `document` when it lacks shapes, has none observed
  // yet and its inputs are known (its own, or `inputSpec`, or those the user last gave for the
  // file). A run for another revision is cancelled. Returns whether shapes are known or coming;
  // false with `why` set when the inputs are not known.
  bool observe(const core::model::Document* document, const QString& inputSpec, QString* why = nullptr);
  bool isRunning() const { return watcher_.isRunning(); }

 Q_SIGNALS:
  // The run ended: `error` is empty when the document now holds the shapes.
  void finished(const QString& error);

 private:
  struct Outcome {
    std::shared_ptr<const core::model::ObservedTypes> types;
    QString error;
  };
  QFutureWatcher<Outcome> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QPointer<core::model::Document> document_;
  core::model::RevisionPtr revision_;  // what the running job observes
};

}  // namespace graft::ui
