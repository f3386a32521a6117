#pragma once
// The command line that reaches a host and starts Graft's agent there: `ssh HOST COMMAND`, or
// GRAFT_SSH_COMMAND in place of `ssh` (split like a shell would, as git's GIT_SSH_COMMAND), so a
// wrapper (`ssh -F config`, a script around `srun` or `kubectl exec`) can stand in.
#include "core/remote/remote_device.h"

#include <QtCore/QStringList>

namespace graft::core::remote {

struct SshCommand {
  QString program;
  QStringList arguments;  // ..., HOST, COMMAND
  QString describe() const;  // for progress lines: "ssh -F cfg graft-test"
};

// The exit status of the remote command when no Python on the host's PATH imports torch.
inline constexpr int kNoTorchExit = 97;

// `agentSha256`: the agent's content hash (hex), the name it is cached under on the host.
SshCommand sshCommand(const RemoteDevice& device, const QString& agentSha256);

// The remote shell command alone: find the Python (or use the given one) and run the bootstrap,
// which caches the agent by hash and runs it on the connection's stdin and stdout.
QString remoteCommand(const RemoteDevice& device, const QString& agentSha256);

// Words as a POSIX shell splits them: blanks separate, '…' and "…" quote, \ escapes (no
// expansions). How GRAFT_SSH_COMMAND is read.
QStringList splitShellWords(const QString& text);

// 'text' for a POSIX shell.
QString shellQuote(const QString& text);

}  // namespace graft::core::remote
