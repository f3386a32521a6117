#pragma once
// Heavy work (load, replay, save, view building, rule application) runs on a worker thread while
// the GUI thread keeps turning its event loop: the window repaints, timers fire and the busy
// indicator moves. The caller still gets the result in line, as if the work ran here. User input
// waits until the work is done (ExcludeUserInputEvents), so no second command can start halfway;
// code that may run from a timer meanwhile checks DocumentController::busy().
#include "core/model/job_guard.h"

#include <QtConcurrent/QtConcurrent>
#include <QtCore/QEventLoop>
#include <QtCore/QFutureWatcher>

#include <utility>

namespace graft::ui {

template <class Work>
auto runOffGuiThread(Work&& work) -> decltype(work()) {
  using Result = decltype(work());
  QFutureWatcher<Result> watcher;
  QEventLoop loop;
  QObject::connect(&watcher, &QFutureWatcherBase::finished, &loop, &QEventLoop::quit);
  watcher.setFuture(QtConcurrent::run(std::forward<Work>(work)));
  if (!watcher.isFinished()) loop.exec(QEventLoop::ExcludeUserInputEvents);
  watcher.waitForFinished();
  return watcher.future().takeResult();
}

}  // namespace graft::ui
