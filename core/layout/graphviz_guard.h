#pragma once
// Graphviz has crashed (SIGSEGV in dot_mincross) on some deep nested cluster graphs. A crash in
// the layout must not take the process and the user's work with it: gvLayout runs with handlers
// for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT that jump back out of Graphviz, and the caller
// draws that group with a fallback layout. The jump leaves that graph's memory to Graphviz; it is
// never touched again.
struct GVC_s;
struct Agraph_s;

namespace graft::core::layout {

// True when gvLayout finished; false when Graphviz crashed inside it. `simulateCrash` raises
// SIGSEGV inside the guard instead of laying out (the test of the guard).
bool layoutWithoutCrashing(GVC_s* context, Agraph_s* graph, bool simulateCrash = false);

}  // namespace graft::core::layout
