#pragma once
// The one Python process that runs rule files, module files (--replace-module) and the rule
// editor's previews (python/graft/_worker.py). It starts at the first job of this process, imports
// torch and warms up torch.export once, and is reused: a job costs a fork of a warm interpreter,
// not a Python start. One job runs at a time; the others wait their turn.
//
// Limits, as for a Python started per job: each job runs in a fork of the worker that leads a
// process group of its own, killed whole when the job ends, reaches its time limit or is
// cancelled, so nothing a rule file starts outlives its job. A worker that dies, hangs past its
// backstop or whose interpreter is no longer the one asked for ($GRAFT_PYTHON changed) is
// replaced at the next job. When Graft exits, the worker and its job go with it (killed by
// process group; a worker whose Graft vanished sees its socket close and ends itself).
#include <QtCore/QString>

#include <atomic>

namespace graft::core::rewrite {

struct PythonJob {
  QString mode;          // "rules" (a rule file) or "module" (a module file for --replace-module)
  QString path;          // the file to run
  QString outDir;        // where the job writes result.json, timeout.txt and output.txt
  QString requestFile;   // the job's request (JSON), or empty
  int timeoutSeconds = 120;
  const std::atomic<bool>* cancel = nullptr;  // turns true: stop the job at once
};

struct PythonJobEnd {
  enum class How { Finished, TimedOut, Cancelled, Failed };
  How how = How::Failed;
  int exitCode = -1;  // the job's process, when it exited
  int signal = 0;     // the signal that ended it, if one did
  QString error;      // Failed: why no job ran (no such Python, no torch there, the worker died)
  QString hint;       // what to do about `error`
  QString python;     // the interpreter that ran (or was to run) the job
};

// Runs `job` in the worker, starting the worker first when none runs; never throws.
PythonJobEnd runPythonJob(const PythonJob& job);

// Starts the worker in the background now (an editor about to preview a Python rule), so that the
// first job finds it warm. Does nothing when one runs or is starting.
void startPythonWorker();

// How many worker processes this process has started (for tests and benchmarks).
int pythonWorkerStarts();

// Stops the worker (the next job starts a new one): for benchmarks that measure a first job.
void stopPythonWorker();

}  // namespace graft::core::rewrite
