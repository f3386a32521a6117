#pragma once
// Work the user may abandon (an open whose load hangs): it runs on a thread of its own while the
// GUI turns its event loop, user input excluded, as runOffGuiThread does. Past a short grace a
// modal dialog offers Cancel; Cancel (or `cancel` set by code) returns at once with nothing. The
// abandoned work cannot be stopped inside libtorch: it runs on, detached, and its result is
// dropped on its own thread when it comes.
#include <QtCore/QCoreApplication>
#include <QtCore/QEventLoop>
#include <QtCore/QTimer>
#include <QtWidgets/QProgressDialog>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace graft::ui {

// Abandoned work still running (tests wait for it; quitting need not).
int abandonedWorkRunning();

namespace detail {
void countAbandoned(int delta);

template <class Result>
struct AbandonableState {
  std::mutex mutex;
  bool done = false, abandoned = false;
  std::optional<Result> result;
};
}  // namespace detail

// `keep` runs on the worker, under the state's lock, on a result the caller will get: there a
// QObject made on that thread is handed to the GUI thread. nullopt: the user cancelled.
template <class Work, class Keep>
auto runAbandonable(QWidget* parent, const QString& what, Work work, Keep keep, const std::atomic<bool>& cancel,
                    int graceMs = 800) -> std::optional<decltype(work())> {
  using Result = decltype(work());
  auto state = std::make_shared<detail::AbandonableState<Result>>();
  std::thread([state, work = std::move(work), keep = std::move(keep)]() mutable {
    std::optional<Result> made(work());
    bool dropped = false;
    {
      std::lock_guard lock(state->mutex);
      state->done = true;
      dropped = state->abandoned;
      if (!dropped) {
        keep(*made);
        state->result = std::move(made);
      }
    }
    if (dropped) {
      made.reset();  // here, on the thread that made it
      detail::countAbandoned(-1);
    }
  }).detach();

  const auto finished = [&] {
    std::lock_guard lock(state->mutex);
    return state->done;
  };
  QEventLoop loop;
  bool cancelled = false;
  QTimer poll;
  poll.setInterval(20);
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (cancel || finished()) loop.quit();
  });
  poll.start();
  QTimer grace;
  grace.setSingleShot(true);
  QObject::connect(&grace, &QTimer::timeout, &loop, &QEventLoop::quit);
  grace.start(graceMs);
  if (!finished() && !cancel) loop.exec(QEventLoop::ExcludeUserInputEvents);
  if (!finished() && !cancel) {
    // Modal: the window takes no input meanwhile, but the dialog's Cancel does.
    QProgressDialog dialog(what, QCoreApplication::translate("graft::ui", "Cancel"), 0, 0, parent);
    dialog.setWindowModality(Qt::ApplicationModal);
    dialog.setMinimumDuration(0);
    dialog.setAutoClose(false);
    dialog.setAutoReset(false);
    QObject::connect(&dialog, &QProgressDialog::canceled, &loop, [&] {
      cancelled = true;
      loop.quit();
    });
    dialog.show();
    while (!cancelled && !cancel && !finished()) loop.exec();
  }
  poll.stop();
  std::lock_guard lock(state->mutex);
  if (state->done) return std::move(state->result);
  state->abandoned = true;
  detail::countAbandoned(1);
  return std::nullopt;
}

}  // namespace graft::ui
