#pragma once
// Intra-op threads for runs, compares and profiles. PyTorch uses one per physical core; Graft does
// the same unless told otherwise (--threads N, the GUI's Run > Threads setting).
namespace graft::core::run {

// Physical cores of this machine (distinct core ids per package in /proc/cpuinfo), at least 1.
int physicalCores();

// Sets libtorch's intra-op thread count; n <= 0 means physicalCores(). Returns the count in force.
int useThreads(int n);

// Applies the default (physical cores) unless useThreads was called already. Jobs call it first.
void ensureThreads();

// The intra-op thread count in force now.
int currentThreads();

}  // namespace graft::core::run
