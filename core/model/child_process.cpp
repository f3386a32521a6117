#include "core/model/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>

#include <cstring>
#include <vector>

extern char** environ;

namespace graft::core::model {

pid_t startChild(const ChildProcess& child, QString* why) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, child.socket, 0);
  if (child.socketIsStdout) posix_spawn_file_actions_adddup2(&actions, child.socket, 1);
  else posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  if (!child.stderrPath.isEmpty())
    posix_spawn_file_actions_addopen(&actions, 2, child.stderrPath.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (child.ownGroup) {
    posix_spawnattr_setpgroup(&attributes, 0);
    flags |= POSIX_SPAWN_SETPGROUP;
  }
  posix_spawnattr_setflags(&attributes, flags);
  std::vector<QByteArray> args = child.argv;  // posix_spawn takes them writable
  std::vector<char*> argv;
  for (QByteArray& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int failed = posix_spawnp(&pid, child.program.constData(), &actions, &attributes, argv.data(),
                                  child.environment ? child.environment : environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (failed != 0) {
    if (why)
      *why = QStringLiteral("%1: %2").arg(QString::fromLocal8Bit(child.program),
                                          QString::fromLocal8Bit(std::strerror(failed)));
    return -1;
  }
  return pid;
}

}  // namespace graft::core::model
