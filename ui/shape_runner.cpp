#include "ui/shape_runner.h"

#include "core/run/input_specs.h"
#include "core/run/observed_types.h"

#include <QtConcurrent/QtConcurrent>

namespace graft::ui {

ShapeRunner::ShapeRunner(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, [this] {
    const Outcome outcome = watcher_.result();
    if (document_ && outcome.types) document_->setObservedTypes(revision_.get(), outcome.types);
    revision_.reset();
    Q_EMIT finished(outcome.error);
  });
}

ShapeRunner::~ShapeRunner() {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

bool ShapeRunner::observe(const core::model::Document* document, const QString& inputSpec, QString* why) {
  if (!document) return false;
  const auto revision = document->current();
  if (!core::run::lacksShapes(*revision) || document->observedTypes(revision.get())) return true;
  if (isRunning() && revision_ == revision) return true;
  const auto inputs = core::run::resolveInputs(*document, inputSpec, 0);
  if (!inputs.inputs) {
    if (why) *why = inputs.error;
    return false;
  }
  if (cancel_) cancel_->store(true);  // the previous revision's run: its answer is no longer shown
  watcher_.waitForFinished();
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  // The document is only written on the GUI thread, when the run is done.
  document_ = const_cast<core::model::Document*>(document);
  revision_ = revision;
  watcher_.setFuture(QtConcurrent::run([revision, inputs = inputs.inputs, cancel = cancel_] {
    Outcome out;
    out.types = core::run::observeTypes(revision, *inputs, cancel.get(), &out.error);
    return out;
  }));
  return true;
}

}  // namespace graft::ui
