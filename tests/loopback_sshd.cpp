#include "loopback_sshd.h"

#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>

#include <unistd.h>

namespace graft::test {

namespace {
bool run(const QString& program, const QStringList& args) {
  QProcess p;
  p.start(program, args);
  return p.waitForFinished(60000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

bool writeFile(const QString& path, const QByteArray& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

QString throttleProxy() {
  return QDir(qEnvironmentVariable("GRAFT_SOURCE_DIR")).absoluteFilePath(QStringLiteral("tests/python/throttle_proxy.py"));
}
}  // namespace

QString venvPython() {
  const QString fromEnv = qEnvironmentVariable("GRAFT_PYTHON");
  if (!fromEnv.isEmpty()) return QFileInfo(fromEnv).absoluteFilePath();
  return QDir(qEnvironmentVariable("GRAFT_SOURCE_DIR")).absoluteFilePath(QStringLiteral(".venv/bin/python"));
}

LoopbackSshd::~LoopbackSshd() { stop(); }

QString LoopbackSshd::unavailable() {
  if (!QFileInfo::exists(QStringLiteral("/usr/sbin/sshd")))
    return QStringLiteral("/usr/sbin/sshd is not installed (packaging/install-deps.sh installs openssh-server)");
  return {};
}

bool LoopbackSshd::start(QString* why) {
  const QString d = dir_.path();
  if (!run(QStringLiteral("ssh-keygen"), {"-q", "-t", "ed25519", "-N", "", "-f", d + "/host_key"}) ||
      !run(QStringLiteral("ssh-keygen"), {"-q", "-t", "ed25519", "-N", "", "-f", d + "/user_key"}) ||
      !QFile::copy(d + "/user_key.pub", d + "/authorized_keys")) {
    *why = QStringLiteral("ssh-keygen failed");
    return false;
  }
  // sshd run by root needs its privilege-separation folder, which the service makes at boot.
  if (geteuid() == 0) QDir().mkpath(QStringLiteral("/run/sshd"));
  const QString user = qEnvironmentVariable("USER", QStringLiteral("root"));
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int port = 20000 + int((getpid() * 7 + attempt * 997) % 40000);
    const QByteArray config = QStringLiteral(
                                  "Port %1\nListenAddress 127.0.0.1\nHostKey %2/host_key\nPidFile %2/sshd.pid\n"
                                  "AuthorizedKeysFile %2/authorized_keys\nStrictModes no\nUsePAM no\n"
                                  "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
                                  "PermitRootLogin prohibit-password\nLogLevel INFO\nSetEnv XDG_CACHE_HOME=%2/cache\n")
                                  .arg(port)
                                  .arg(d)
                                  .toUtf8();
    writeFile(d + "/sshd_config", config);
    const QByteArray client = QStringLiteral(
                                  "Host graft-test\n  HostName 127.0.0.1\n  Port %1\n  User %3\n  IdentityFile %2/user_key\n"
                                  "  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile %2/known_hosts\n"
                                  "  BatchMode yes\n  LogLevel ERROR\n"
                                  "Host graft-closed\n  HostName 127.0.0.1\n  Port 1\n  BatchMode yes\n  ConnectTimeout 5\n"
                                  "Host graft-slow\n  HostName 127.0.0.1\n  User %3\n  IdentityFile %2/user_key\n"
                                  "  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile %2/known_hosts\n"
                                  "  BatchMode yes\n  LogLevel ERROR\n  ProxyCommand python3 %4 127.0.0.1 %1 %5\n")
                                  .arg(port)
                                  .arg(d, user, throttleProxy())
                                  .arg(kSlowLinkBytesPerSecond)
                                  .toUtf8();
    writeFile(d + "/ssh_config", client);
    sshd_.setProcessChannelMode(QProcess::MergedChannels);
    sshd_.start(QStringLiteral("/usr/sbin/sshd"), {"-D", "-e", "-f", d + "/sshd_config"});
    QByteArray log;
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 10000 && sshd_.state() != QProcess::NotRunning && !log.contains("Server listening")) {
      sshd_.waitForReadyRead(200);
      log += sshd_.readAll();
    }
    if (log.contains("Server listening")) {
      qputenv("GRAFT_SSH_COMMAND", QStringLiteral("ssh -F %1/ssh_config").arg(d).toUtf8());
      return true;
    }
    sshd_.kill();
    sshd_.waitForFinished();
    *why = QString::fromUtf8(log.trimmed());
  }
  return false;
}

void LoopbackSshd::stop() {
  if (sshd_.state() == QProcess::NotRunning) return;
  sshd_.terminate();
  if (!sshd_.waitForFinished(3000)) sshd_.kill();
  sshd_.waitForFinished(1000);
}

}  // namespace graft::test
