#include "core/layout/layout_service.h"

#include "core/model/job_guard.h"

#include <QtCore/QMetaObject>
#include <QtCore/QPointer>

namespace graft::core::layout {

LayoutService::LayoutService(QObject* parent, LayoutOptions options) : QObject(parent) {
  thread_.setObjectName(QStringLiteral("graft-layout"));
  worker_ = new QObject;
  engine_ = new LayoutEngine(options);
  worker_->moveToThread(&thread_);
  thread_.start();
}

LayoutService::~LayoutService() {
  cancel();
  thread_.quit();
  thread_.wait();
  delete engine_;  // the thread has stopped: nothing else touches the engine
  delete worker_;
}

void LayoutService::setView(std::shared_ptr<const model::GraphView> view) {
  cancel();
  LayoutEngine* engine = engine_;
  QMetaObject::invokeMethod(worker_, [engine, view] { engine->setView(view); }, Qt::QueuedConnection);
}

int LayoutService::request(const Expansion& expanded, const Folds& folds) {
  cancel();
  auto flag = std::make_shared<std::atomic<bool>>(false);
  cancel_ = flag;
  const int id = ++lastRequest_;
  ++pending_;
  LayoutEngine* engine = engine_;
  QPointer<LayoutService> self(this);
  QMetaObject::invokeMethod(worker_, [engine, expanded, folds, flag, id, self] {
    Diagram d;
    // An exception must not leave this thread's event loop: it would end the process.
    if (engine->view() && !flag->load())
      d = model::guarded(
          [&] {
            return engine->layout(
                expanded, flag.get(),
                [&](int done, int total) {
                  QMetaObject::invokeMethod(
                      self,
                      [self, id, done, total] {
                        if (self) Q_EMIT self->progress(id, done, total);
                      },
                      Qt::QueuedConnection);
                },
                folds);
          },
          [](const QString& why) {
            Diagram failed;
            failed.error = QStringLiteral("the layout failed: %1").arg(why);
            return failed;
          });
    else d.cancelled = true;
    QMetaObject::invokeMethod(self, [self, id, d] {
      if (!self) return;
      --self->pending_;
      // Only the newest request's result is worth showing.
      if (id == self->lastRequest_ && !d.cancelled) Q_EMIT self->finished(id, d);
    }, Qt::QueuedConnection);
  }, Qt::QueuedConnection);
  return id;
}

void LayoutService::cancel() {
  if (cancel_) cancel_->store(true);
}

}  // namespace graft::core::layout
