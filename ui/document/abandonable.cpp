#include "ui/document/abandonable.h"

namespace graft::ui {

namespace {
std::atomic<int> g_abandoned{0};
}

int abandonedWorkRunning() { return g_abandoned; }

void detail::countAbandoned(int delta) { g_abandoned += delta; }

}  // namespace graft::ui
