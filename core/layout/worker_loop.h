#pragma once
// The layout worker's side: reads DotJobs from `fd` one at a time, lays each out and answers with
// its DotResult, until `fd` closes. An exception in a job is caught and answered as an error; a
// crash or a hang ends (or stalls) only this process, and Graft's side starts another.
namespace graft::core::layout {

// Returns the process exit code: 0 when `fd` closed, 2 on a malformed job or a broken reply.
int serveDotJobs(int fd);

}  // namespace graft::core::layout
