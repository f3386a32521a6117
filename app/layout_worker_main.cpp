// graft-layout-worker: the process Graft's layouts run Graphviz in (core/layout/layout_worker).
// Graft starts it with a socket as stdin; it lays out one job at a time until the socket closes.
// It links Qt Core and Graphviz only: it starts fast, and holds no model.
#include "core/layout/worker_loop.h"

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 2 || std::strcmp(argv[1], "--serve-stdin") != 0) {
    std::fprintf(stderr,
                 "graft-layout-worker: started by Graft (graft-layout-worker --serve-stdin, a socket as stdin)\n");
    return 2;
  }
  return graft::core::layout::serveDotJobs(0);
}
