#include "core/remote/agent_connection.h"

#include "core/remote/ssh_command.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <algorithm>

// The agent travels inside Graft (core/CMakeLists.txt adds python/graft/agent.py as a resource).
static void initAgentResource() { Q_INIT_RESOURCE(graft_agent); }

namespace graft::core::remote {

namespace {
// Lines a login shell may print before the bootstrap speaks (a chatty .bashrc): skipped, bounded.
constexpr int kMaxLinesBeforeAgent = 200;
// Progress lines while sending: one per this many bytes, or every two seconds on a slow link.
constexpr qint64 kProgressStep = 16 << 20;
constexpr qint64 kProgressMinimum = 1 << 20;  // smaller payloads go without progress lines

QString lastLine(const QByteArray& text) {
  const QList<QByteArray> lines = text.trimmed().split('\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!it->trimmed().isEmpty()) return QString::fromUtf8(it->trimmed()).left(300);
  return {};
}
}  // namespace

const QByteArray& agentSource() {
  static const QByteArray source = [] {
    initAgentResource();
    QFile f(QStringLiteral(":/python/graft/agent.py"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
  }();
  return source;
}

QString agentSha256() {
  return QString::fromLatin1(QCryptographicHash::hash(agentSource(), QCryptographicHash::Sha256).toHex());
}

QString byteCount(qint64 bytes) {
  if (bytes >= 1000 * 1000) return QStringLiteral("%1 MB").arg(bytes / 1e6, 0, 'f', 1);
  if (bytes >= 1000) return QStringLiteral("%1 KB").arg(bytes / 1e3, 0, 'f', 1);
  return QStringLiteral("%1 B").arg(bytes);
}

AgentConnection::AgentConnection(RemoteDevice device, Progress progress, const std::atomic<bool>* cancel)
    : device_(std::move(device)), progress_(std::move(progress)), cancel_(cancel) {}

AgentConnection::~AgentConnection() {
  if (!process_ || process_->state() == QProcess::NotRunning) return;
  process_->write("{\"op\":\"bye\",\"bytes\":0}\n");
  process_->closeWriteChannel();
  if (!process_->waitForFinished(3000)) {
    process_->kill();
    process_->waitForFinished(1000);
  }
}

void AgentConnection::say(const QString& line) const {
  if (progress_) progress_(device_.host + QStringLiteral(": ") + line);
}

QString AgentConnection::deviceLabel() const {
  QString label = device_.host + QLatin1Char(':') + device_.device;
  const QString name = hello_.value(QStringLiteral("device_name")).toString();
  if (!name.isEmpty()) label += QStringLiteral(", ") + name;
  return label + QStringLiteral(", torch ") + hello_.value(QStringLiteral("torch")).toString();
}

QString AgentConnection::endedMessage(const QString& what) {
  stderr_ += process_->readAllStandardError();
  const QString tail = lastLine(stderr_);
  const int code = process_->exitCode();
  const QString host = device_.host + QStringLiteral(": ");
  if (process_->error() == QProcess::FailedToStart)
    return host +
           QStringLiteral("ssh failed: cannot start '%1' (%2)").arg(process_->program(), process_->errorString());
  if (process_->exitStatus() == QProcess::CrashExit)
    return host + QStringLiteral("the ssh process was killed during %1").arg(what);
  if (!bootstrapped_) {
    if (code == kNoTorchExit) return host + QStringLiteral("no torch: ") + tail;
    if (code == 255)
      return host + QStringLiteral("ssh failed: ") + (tail.isEmpty() ? QStringLiteral("exit 255") : tail);
    if (code == 126 || code == 127)
      return host + QStringLiteral("no Python at %1 (%2)")
                        .arg(device_.python.isEmpty() ? QStringLiteral("python3") : device_.python, tail);
    return host + QStringLiteral("the agent could not start (exit %1)%2")
                      .arg(code)
                      .arg(tail.isEmpty() ? QString() : QStringLiteral(": ") + tail);
  }
  const QString how = code == 255 ? QStringLiteral("ssh exit 255: the agent was killed or the connection dropped")
                                  : QStringLiteral("exit %1").arg(code);
  return host + QStringLiteral("the agent died during %1 (%2)%3")
                    .arg(what, how, tail.isEmpty() ? QString() : QStringLiteral(": ") + tail);
}

bool AgentConnection::waitForData(const QString& what, QString* error) {
  for (;;) {
    if (cancel_ && cancel_->load()) {
      process_->kill();
      process_->waitForFinished(1000);
      *error = device_.host + QStringLiteral(": cancelled during ") + what;
      return false;
    }
    if (process_->state() == QProcess::NotRunning) {
      const QByteArray rest = process_->readAllStandardOutput();
      if (!rest.isEmpty()) {
        buffer_ += rest;
        received_ += rest.size();
        return true;
      }
      *error = endedMessage(what);
      return false;
    }
    if (process_->waitForReadyRead(100) || process_->bytesAvailable() > 0) {
      const QByteArray chunk = process_->readAllStandardOutput();
      stderr_ += process_->readAllStandardError();
      if (stderr_.size() > (1 << 16)) stderr_ = stderr_.right(1 << 15);
      if (chunk.isEmpty()) continue;
      buffer_ += chunk;
      received_ += chunk.size();
      return true;
    }
  }
}

std::optional<QByteArray> AgentConnection::readLine(const QString& what, QString* error) {
  for (;;) {
    if (const qsizetype nl = buffer_.indexOf('\n'); nl >= 0) {
      QByteArray line = buffer_.left(nl);
      buffer_.remove(0, nl + 1);
      return line;
    }
    if (!waitForData(what, error)) return std::nullopt;
  }
}

std::optional<QByteArray> AgentConnection::readExactly(qint64 size, const QString& what, QString* error) {
  while (buffer_.size() < size)
    if (!waitForData(what, error)) return std::nullopt;
  QByteArray out = buffer_.left(size);
  buffer_.remove(0, size);
  return out;
}

bool AgentConnection::write(const QByteArray& bytes, const QString& what, QString* error) {
  // In bounded chunks: at most kChunk bytes wait in QProcess's buffer, so a large model is not
  // copied there whole.
  constexpr qint64 kChunk = 4 << 20;
  const qint64 size = bytes.size();
  qint64 offset = 0, nextSay = kProgressStep;
  QElapsedTimer started, sinceSaid;  // a slow link still shows progress every two seconds
  started.start();
  sinceSaid.start();
  while (offset < size || process_->bytesToWrite() > 0) {
    // Ended: what it said last (a "no torch" reply before it exits) is read next, or its end is.
    if (process_->state() == QProcess::NotRunning) return true;
    if (offset < size && process_->bytesToWrite() < kChunk) {
      const qint64 n = std::min(kChunk, size - offset);
      process_->write(bytes.constData() + offset, n);
      offset += n;
      sent_ += n;
      continue;
    }
    if (cancel_ && cancel_->load()) {
      process_->kill();
      process_->waitForFinished(1000);
      *error = device_.host + QStringLiteral(": cancelled during ") + what;
      return false;
    }
    process_->waitForBytesWritten(100);
    const qint64 done = offset - process_->bytesToWrite();
    if (size >= kProgressMinimum && done < size && (done >= nextSay || sinceSaid.elapsed() >= 2000)) {
      const qint64 perSecond = done * 1000 / std::max<qint64>(1, started.elapsed());
      say(QStringLiteral("%1: sent %2 of %3 (%4/s)").arg(what, byteCount(done), byteCount(size), byteCount(perSecond)));
      nextSay = done + kProgressStep;
      sinceSaid.restart();
    }
  }
  return true;
}

void AgentConnection::start() {
  if (process_) return;
  const SshCommand command = sshCommand(device_, agentSha256());
  process_ = std::make_unique<QProcess>();
  process_->setProcessChannelMode(QProcess::SeparateChannels);
  say(QStringLiteral("connecting (%1)").arg(command.describe()));
  process_->start(command.program, command.arguments);
}

bool AgentConnection::open(const QJsonObject& hello, QString* error) {
  if (agentSource().isEmpty()) {
    *error = QStringLiteral("Graft's agent is missing from this build");
    return false;
  }
  start();
  if (!process_->waitForStarted(30000)) {
    *error = endedMessage(QStringLiteral("connect"));
    return false;
  }
  // The bootstrap says whether the host has this agent cached.
  const QString connecting = QStringLiteral("connect");
  for (int skipped = 0;; ++skipped) {
    const auto line = readLine(connecting, error);
    if (!line) return false;
    if (*line == "graft-agent have") break;
    if (*line == "graft-agent need") {
      say(QStringLiteral("sending the agent (%1, first use of this version)").arg(byteCount(agentSource().size())));
      if (!write(QByteArray::number(agentSource().size()) + '\n' + agentSource(), QStringLiteral("sending the agent"),
                 error))
        return false;
      break;
    }
    if (skipped >= kMaxLinesBeforeAgent) {
      *error = device_.host + QStringLiteral(": the agent did not start: the host's shell printed '%1'")
                                  .arg(QString::fromUtf8(line->left(200)));
      return false;
    }
  }
  bootstrapped_ = true;
  QJsonObject h = hello;
  h.insert(QStringLiteral("op"), QStringLiteral("hello"));
  h.insert(QStringLiteral("device"), device_.device);
  const auto reply = request(h, {}, QStringLiteral("hello"), error);
  if (!reply) return false;
  hello_ = reply->header;
  say(QStringLiteral("agent ready: pid %1, %2, Python %3 (%4)")
          .arg(hello_.value(QStringLiteral("pid")).toInt())
          .arg(deviceLabel(), hello_.value(QStringLiteral("python_version")).toString(),
               hello_.value(QStringLiteral("python")).toString()));
  return true;
}

std::optional<AgentReply> AgentConnection::request(QJsonObject header, const QByteArray& payload, const QString& what,
                                                   QString* error) {
  header.insert(QStringLiteral("bytes"), payload.size());
  ++roundTrips_;
  if (!write(QJsonDocument(header).toJson(QJsonDocument::Compact) + '\n', what, error)) return std::nullopt;
  if (!payload.isEmpty() && !write(payload, what, error)) return std::nullopt;
  for (;;) {
    const auto line = readLine(what, error);
    if (!line) return std::nullopt;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(*line, &parseError);
    if (!doc.isObject()) {
      *error = device_.host + QStringLiteral(": the agent sent something unreadable during %1: %2")
                                  .arg(what, QString::fromUtf8(line->left(200)));
      return std::nullopt;
    }
    AgentReply reply{doc.object(), {}};
    const qint64 size = reply.header.value(QStringLiteral("bytes")).toInteger();
    if (size > 0) {
      auto bytes = readExactly(size, what, error);
      if (!bytes) return std::nullopt;
      reply.payload = std::move(*bytes);
    }
    if (reply.header.contains(QStringLiteral("progress"))) {
      say(what + QStringLiteral(": ") + reply.header.value(QStringLiteral("progress")).toString());
      continue;
    }
    if (!reply.header.value(QStringLiteral("ok")).toBool()) {
      const QString kind = reply.header.value(QStringLiteral("kind")).toString();
      QString message = reply.header.value(QStringLiteral("message")).toString();
      if (kind == QLatin1String("oom"))
        message = QStringLiteral("out of memory on %1: %2").arg(device_.device, message);
      *error = device_.host + QStringLiteral(": ") + message;
      return std::nullopt;
    }
    return reply;
  }
}

}  // namespace graft::core::remote
