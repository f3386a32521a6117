#include "core/layout/graphviz_guard.h"

#include <graphviz/gvc.h>

#include <csetjmp>
#include <csignal>

namespace graft::core::layout {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
thread_local sigjmp_buf* active = nullptr;

void onCrash(int signal) {
  if (active) siglongjmp(*active, signal);
  // Not inside Graphviz on this thread: the default action, as if no handler were installed.
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

bool layoutWithoutCrashing(GVC_s* context, Agraph_s* graph, bool simulateCrash) {
  struct sigaction handler {}, previous[std::size(kSignals)];
  handler.sa_handler = onCrash;
  sigemptyset(&handler.sa_mask);
  handler.sa_flags = SA_NODEFER;
  for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &handler, &previous[i]);
  sigjmp_buf jump;
  bool finished = false;
  if (sigsetjmp(jump, 1) == 0) {
    active = &jump;
    if (simulateCrash) std::raise(SIGSEGV);
    gvLayout(context, graph, "dot");
    finished = true;
  }
  active = nullptr;
  for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &previous[i], nullptr);
  return finished;
}

}  // namespace graft::core::layout
