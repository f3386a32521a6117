#pragma once
// Intra-op threads for runs, compares and profiles. PyTorch uses one per physical core; Graft does
// the same unless told otherwise (--threads N, the GUI's Run > Threads setting).
namespace graft::core::run {

// Physical cores of this machine (distinct core ids per package in /proc/cpuinfo), at least 1.
int physicalCores();

// The most intra-op threads Graft asks libtorch for: four per hardware thread of this machine, at
// least 256 (a remote host may have more cores than this one), at most 1024. Each thread has a
// stack, so 100,000 of them end in libgomp's "Out of memory" instead of a run.
int maxThreads();

// Sets libtorch's intra-op thread count; n <= 0 means physicalCores(), and a count over
// maxThreads() is held to it. Returns the count in force.
int useThreads(int n);

// Applies the default (physical cores) unless useThreads was called already. Jobs call it first.
void ensureThreads();

// The intra-op thread count in force now.
int currentThreads();

}  // namespace graft::core::run
