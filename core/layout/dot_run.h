#pragma once
// Lays out one DotJob with Graphviz `dot`. Runs only inside the layout worker process
// (core/layout/worker_loop): Graphviz can crash or hang, and its state is never in Graft's own
// process.
#include "core/layout/dot_job.h"

struct GVC_s;

namespace graft::core::layout {

DotResult runDot(GVC_s* context, const DotJob& job);

}  // namespace graft::core::layout
