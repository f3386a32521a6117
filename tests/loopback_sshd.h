#pragma once
// A throwaway sshd on 127.0.0.1 for the remote-device tests (tst_remote, tst_remote_ui): its own
// host and user keys, its own client config with the aliases `graft-test` (this sshd),
// `graft-slow` (this sshd through tests/python/throttle_proxy.py at kSlowLinkBytesPerSecond each
// way) and `graft-closed` (a refused port), and GRAFT_SSH_COMMAND set to `ssh -F <that config>`. The
// "remote" Python is the venv's; the host's cache (XDG_CACHE_HOME) is inside its folder.
#include <QtCore/QProcess>
#include <QtCore/QString>
#include <QtCore/QTemporaryDir>

namespace graft::test {

// The slow link's rate: resnet18 (45 MB) would take over ten minutes to send.
inline constexpr int kSlowLinkBytesPerSecond = 64 * 1024;

// The venv's Python: the "remote" Python that has torch (GRAFT_PYTHON, else the checkout's .venv).
QString venvPython();

class LoopbackSshd {
 public:
  LoopbackSshd() = default;
  ~LoopbackSshd();
  LoopbackSshd(const LoopbackSshd&) = delete;
  LoopbackSshd& operator=(const LoopbackSshd&) = delete;

  // Why these tests cannot run here (no /usr/sbin/sshd), or empty.
  static QString unavailable();
  // Starts sshd on a free port (tries a few); false with `why` (its log) when it did not start.
  bool start(QString* why);
  void stop();
  QString folder() const { return dir_.path(); }

 private:
  QTemporaryDir dir_;
  QProcess sshd_;
};

}  // namespace graft::test
