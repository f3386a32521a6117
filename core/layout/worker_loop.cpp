#include "core/layout/worker_loop.h"

#include "core/layout/dot_run.h"
#include "core/layout/frame_io.h"

#include <QtCore/QElapsedTimer>
#include <graphviz/gvc.h>

#include <csignal>
#include <exception>

namespace graft::core::layout {

int serveDotJobs(int fd) {
  // Default actions: a crash must end this process (Graft sees its socket close), and a forked
  // worker must not run its parent's crash-journal or quit handlers.
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP}) std::signal(s, SIG_DFL);
  std::signal(SIGPIPE, SIG_IGN);
  GVC_t* context = gvContext();
  int code = 0;
  for (QByteArray bytes;;) {
    if (readFrame(fd, bytes) != FrameRead::Ok) break;
    DotJob job;
    if (!dotJobFromBytes(bytes, job)) {
      code = 2;
      break;
    }
    DotResult result;
    QElapsedTimer timer;
    timer.start();
    try {
      result = runDot(context, job);
    } catch (const std::exception& e) {
      result = {};
      result.error = QString::fromLocal8Bit(e.what());
    } catch (...) {
      result = {};
      result.error = QStringLiteral("an unknown exception");
    }
    result.workerMs = double(timer.nsecsElapsed()) / 1e6;
    if (!writeFrame(fd, toBytes(result))) {
      code = 2;
      break;
    }
  }
  gvFreeContext(context);
  return code;
}

}  // namespace graft::core::layout
