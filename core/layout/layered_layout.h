#pragma once
// Graft's own layered (Sugiyama-style) layout, for a group too big for one bounded `dot` run
// (the 300 blocks of a decomposed LLM side by side with their mask and position ops) and for a
// group Graphviz failed on. Data flows top-down as in dot: ranks by longest path, every edge runs
// from a lower rank to a higher one (a cycle's back edge aside), ordered by barycentre sweeps,
// routed as straight vertical segments through one bundled channel per source item, so a value
// read by 300 blocks is one line with 300 branches, not 300 lines. Linear in items plus the
// ranks its channels cross: 350 items and 650 edges take milliseconds where dot took 27 s.
#include "core/layout/dot_job.h"

namespace graft::core::layout {

// `job` laid out in Graphviz's coordinates (y up), as runDot would return it: a centre per node,
// a spline per edge. Rank subgraphs "source" / "sink" put their nodes on the first / last rank.
DotResult layeredLayout(const DotJob& job, double ranksepPoints, double nodesepPoints);

}  // namespace graft::core::layout
