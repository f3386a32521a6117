#pragma once
// Starting a helper process that talks over a socket (the layout worker, the Python worker): its
// signals as a new program's, whatever the caller blocks or ignores, and optionally a process
// group of its own, so that killing the group ends it and whatever it started.
#include <QtCore/QByteArray>
#include <QtCore/QString>

#include <sys/types.h>

#include <vector>

namespace graft::core::model {

struct ChildProcess {
  QByteArray program;              // a path, or a name looked up on PATH
  std::vector<QByteArray> argv;    // argv[0] included
  char* const* environment = nullptr;  // null: this process's
  int socket = -1;                 // the child's stdin
  bool socketIsStdout = false;     // also its stdout; otherwise stdout goes to /dev/null
  QByteArray stderrPath;           // empty: /dev/null
  bool ownGroup = false;
};

// The child's pid, or -1 with `why` ("program: reason").
pid_t startChild(const ChildProcess& child, QString* why);

}  // namespace graft::core::model
