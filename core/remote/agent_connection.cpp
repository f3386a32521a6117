#include "core/remote/agent_connection.h"

#include "core/remote/host_text.h"
#include "core/remote/reply_limits.h"
#include "core/remote/ssh_command.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QThread>
#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

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
    if (!it->trimmed().isEmpty()) return hostText(it->trimmed(), 300);
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
  // Never throws, even while an exception unwinds through the job: a throw here would abort.
  try {
    if (process_ && process_->state() != QProcess::NotRunning) {
      process_->write("{\"op\":\"bye\",\"bytes\":0}\n");
      end(3000);
    }
  } catch (...) {
  }
  try {
    process_.reset();
  } catch (...) {
  }
  if (stderrFd_ >= 0) ::close(stderrFd_);
}

void AgentConnection::end(int graceMs) {
  // Closing stdin ends the agent and its process group (python/graft/agent.py); what the host
  // still sends is dropped as it comes, so nothing piles up while we wait.
  process_->closeWriteChannel();
  process_->closeReadChannel(QProcess::StandardOutput);
  if (!process_->waitForFinished(graceMs)) {
    process_->kill();
    process_->waitForFinished(1000);
  }
}

bool AgentConnection::cancelled(const QString& what, QString* error) {
  if (!cancel_ || !cancel_->load()) return false;
  end(2000);
  *error = device_.host + QStringLiteral(": cancelled during ") + what;
  return true;
}

bool AgentConnection::drainStderr() {
  if (stderrFd_ < 0) return false;
  bool got = false;
  // At most 16 MiB a call (then stdout's turn), the last kStderrKept bytes kept: a host that
  // floods its stderr waits on the pipe instead of filling our memory.
  char chunk[1 << 16];
  for (int i = 0; i < 256; ++i) {
    const ssize_t n = ::read(stderrFd_, chunk, sizeof chunk);
    if (n <= 0) {
      if (n == 0) {  // the host's end closed
        ::close(stderrFd_);
        stderrFd_ = -1;
      }
      return got;
    }
    got = true;
    stderr_.append(chunk, n);
    if (stderr_.size() > kStderrKept) stderr_ = stderr_.right(kStderrKept);
  }
  return got;
}

bool AgentConnection::tooLarge(const QString& what, const QString& why, QString* error) {
  *error = device_.host + QStringLiteral(": reply too large during %1: %2").arg(what, why);
  end(1000);
  return false;
}

void AgentConnection::say(const QString& line) const {
  if (progress_) progress_(device_.host + QStringLiteral(": ") + line);
}

QString AgentConnection::deviceLabel() const {
  QString label = device_.host + QLatin1Char(':') + device_.device;
  const QString name = hostText(hello_.value(QStringLiteral("device_name")).toString(), 120);
  if (!name.isEmpty()) label += QStringLiteral(", ") + name;
  return label + QStringLiteral(", torch ") + hostText(hello_.value(QStringLiteral("torch")).toString(), 60);
}

QString AgentConnection::endedMessage(const QString& what) {
  for (int i = 0; i < 4 && stderrFd_ >= 0; ++i) drainStderr();
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
  dropReason_ = QStringLiteral("the agent died during %1 (%2)%3")
                    .arg(what, how, tail.isEmpty() ? QString() : QStringLiteral(": ") + tail);
  return host + dropReason_;
}

bool AgentConnection::waitForData(const QString& what, QString* error) {
  for (;;) {
    if (cancelled(what, error)) return false;
    // While the host writes to stderr, its pipe is read again soon, so a chatty host is not slowed.
    const int waitMs = drainStderr() ? 1 : 50;
    if (process_->state() == QProcess::NotRunning) {
      const QByteArray rest = process_->readAllStandardOutput();
      if (!rest.isEmpty()) return take(rest, what, error);
      *error = endedMessage(what);
      return false;
    }
    if (process_->waitForReadyRead(waitMs) || process_->bytesAvailable() > 0) {
      const QByteArray chunk = process_->readAllStandardOutput();
      if (chunk.isEmpty()) continue;
      return take(chunk, what, error);
    }
  }
}

bool AgentConnection::take(const QByteArray& chunk, const QString& what, QString* error) {
  received_ += chunk.size();
  if (buffer_.size() > allowed_ - chunk.size())
    return tooLarge(what, QStringLiteral("more than %1 unasked for").arg(byteCount(allowed_)), error);
  try {
    buffer_ += chunk;
  } catch (const std::bad_alloc&) {
    const QString bytes = byteCount(buffer_.size() + chunk.size());
    return tooLarge(what, QStringLiteral("%1 do not fit in memory").arg(bytes), error);
  }
  return true;
}

std::optional<QByteArray> AgentConnection::readLine(const QString& what, QString* error) {
  qsizetype searched = 0;
  for (;;) {
    if (const qsizetype nl = buffer_.indexOf('\n', searched); nl >= 0) {
      QByteArray line = buffer_.left(nl);
      buffer_.remove(0, nl + 1);
      return line;
    }
    searched = buffer_.size();
    if (buffer_.size() > kMaxHeaderLine) {
      tooLarge(what, QStringLiteral("a header line longer than %1").arg(byteCount(kMaxHeaderLine)), error);
      return std::nullopt;
    }
    if (!waitForData(what, error)) return std::nullopt;
  }
}

std::optional<QByteArray> AgentConnection::readExactly(qint64 size, const QString& what, QString* error) {
  // The caller checked `size` against what the request can produce; room for it is made once, and
  // a failure to find it is an error, not an abort.
  const qint64 saved = allowed_;
  allowed_ = size + kMaxHeaderLine;
  try {
    buffer_.reserve(size + (1 << 16));
  } catch (const std::bad_alloc&) {
    allowed_ = saved;
    tooLarge(what, QStringLiteral("%1 do not fit in memory").arg(byteCount(size)), error);
    return std::nullopt;
  }
  while (buffer_.size() < size)
    if (!waitForData(what, error)) {
      allowed_ = saved;
      return std::nullopt;
    }
  allowed_ = saved;
  QByteArray out;
  if (buffer_.size() == size) {
    out = std::move(buffer_);
    buffer_ = QByteArray();
  } else {
    out = buffer_.left(size);
    buffer_.remove(0, size);
  }
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
    if (cancelled(what, error)) return false;
    process_->waitForBytesWritten(100);
    // An early answer (or a flood) is taken as it comes, bounded, not left to pile up in QProcess.
    drainStderr();
    if (process_->bytesAvailable() > 0 && !take(process_->readAllStandardOutput(), what, error)) return false;
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
  // The host's stderr comes through a pipe of our own, read a bounded amount at a time (QProcess
  // would buffer all of it), and ssh ends with this process (a --timeout, a crash).
  int fds[2];
  const int writeEnd = ::pipe2(fds, O_CLOEXEC) == 0 ? fds[1] : -1;
  if (writeEnd >= 0) {
    stderrFd_ = fds[0];
    ::fcntl(stderrFd_, F_SETFL, ::fcntl(stderrFd_, F_GETFL) | O_NONBLOCK);
    ::fcntl(stderrFd_, F_SETPIPE_SZ, 1 << 20);  // fewer wake-ups for a chatty host; best effort
  }
  process_->setChildProcessModifier([writeEnd] {
    if (writeEnd >= 0) ::dup2(writeEnd, STDERR_FILENO);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  });
  say(QStringLiteral("connecting (%1)").arg(command.describe()));
  process_->start(command.program, command.arguments);
  if (writeEnd >= 0) ::close(writeEnd);
}

bool AgentConnection::open(const QJsonObject& hello, QString* error) {
  if (agentSource().isEmpty()) {
    *error = QStringLiteral("Graft's agent is missing from this build");
    return false;
  }
  QJsonObject h = hello;
  h.insert(QStringLiteral("op"), QStringLiteral("hello"));
  h.insert(QStringLiteral("device"), device_.device);
  if (agentIdleSeconds_ > 0) h.insert(QStringLiteral("idle_s"), agentIdleSeconds_);
  if (bootstrapped_ && !hello_.isEmpty()) return reopen(h, error);
  start();
  inFlight_ = true;  // until the hello's reply: a connection left mid-bootstrap is never reused
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
                                  .arg(hostText(*line, 200));
      return false;
    }
  }
  bootstrapped_ = true;
  if (!sayHello(h, error)) return false;
  say(QStringLiteral("agent ready: pid %1, %2, Python %3 (%4)")
          .arg(hello_.value(QStringLiteral("pid")).toInt())
          .arg(deviceLabel(), hostText(hello_.value(QStringLiteral("python_version")).toString(), 40),
               hostText(hello_.value(QStringLiteral("python")).toString(), 200)));
  if (!reconnectNote_.isEmpty())
    say(QStringLiteral("reconnected (the previous connection ended: %1)").arg(reconnectNote_));
  reconnectNote_.clear();
  return true;
}

bool AgentConnection::sayHello(const QJsonObject& hello, QString* error) {
  const auto reply = request(hello, {}, QStringLiteral("hello"), error);
  if (!reply) return false;
  hello_ = reply->header;
  lastHello_ = hello;
  return true;
}

bool AgentConnection::reopen(const QJsonObject& hello, QString* error) {
  // The agent is already running: a hello again only when the job asks for other settings.
  if (hello != lastHello_ && !sayHello(hello, error)) return false;
  say(QStringLiteral("reusing the agent: pid %1, %2")
          .arg(hello_.value(QStringLiteral("pid")).toInt())
          .arg(deviceLabel()));
  return true;
}

void AgentConnection::beginJob(const RemoteDevice& device, Progress progress, const std::atomic<bool>* cancel) {
  device_ = device;
  progress_ = std::move(progress);
  cancel_ = cancel;
  sent_ = received_ = 0;
  roundTrips_ = 0;
}

void AgentConnection::endJob() {
  progress_ = {};
  cancel_ = nullptr;
}

bool AgentConnection::reusable() {
  if (!process_ || inFlight_ || process_->state() == QProcess::NotRunning) return false;
  // state() changes only when someone looks (no event loop here): a zero wait polls the process.
  return !process_->waitForFinished(0);
}

void AgentConnection::releaseThread() {
  if (process_) process_->moveToThread(nullptr);
}

void AgentConnection::takeThread() {
  // An object with no thread may be pulled to the current one (QObject::moveToThread).
  if (process_ && process_->thread() != QThread::currentThread()) process_->moveToThread(QThread::currentThread());
}

std::optional<AgentReply> AgentConnection::request(QJsonObject header, const QByteArray& payload, const QString& what,
                                                   QString* error) {
  header.insert(QStringLiteral("bytes"), payload.size());
  ++roundTrips_;
  inFlight_ = true;
  if (!write(QJsonDocument(header).toJson(QJsonDocument::Compact) + '\n', what, error)) return std::nullopt;
  if (!payload.isEmpty() && !write(payload, what, error)) return std::nullopt;
  for (;;) {
    const auto line = readLine(what, error);
    if (!line) return std::nullopt;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(*line, &parseError);
    if (!doc.isObject()) {
      *error = device_.host + QStringLiteral(": the agent sent something unreadable during %1: %2")
                                  .arg(what, hostText(*line, 200));
      return std::nullopt;
    }
    AgentReply reply{doc.object(), {}};
    const QJsonValue announced = reply.header.value(QStringLiteral("bytes"));
    const qint64 size = announced.toInteger(-1);
    if (size < 0 && !announced.isUndefined()) {
      *error = device_.host + QStringLiteral(": the agent sent something unreadable during %1: a size of %2")
                                  .arg(what, hostText(announced.toVariant().toString(), 40));
      return std::nullopt;
    }
    if (const qint64 limit = replyLimit(header); size > limit) {
      tooLarge(what, QStringLiteral("%1 announced, at most %2 can come back").arg(byteCount(size), byteCount(limit)),
               error);
      return std::nullopt;
    }
    if (size > 0) {
      auto bytes = readExactly(size, what, error);
      if (!bytes) return std::nullopt;
      reply.payload = std::move(*bytes);
    }
    if (reply.header.contains(QStringLiteral("progress"))) {
      say(what + QStringLiteral(": ") + hostText(reply.header.value(QStringLiteral("progress")).toString(), 200));
      continue;
    }
    inFlight_ = false;  // the whole reply is read: the connection can serve the next request
    showModelOutput(reply.header.value(QStringLiteral("model_output")).toString());
    if (!reply.header.value(QStringLiteral("ok")).toBool()) {
      const QString kind = reply.header.value(QStringLiteral("kind")).toString();
      QString message = hostText(reply.header.value(QStringLiteral("message")).toString());
      if (kind == QLatin1String("oom"))
        message = QStringLiteral("out of memory on %1: %2").arg(device_.device, message);
      *error = device_.host + QStringLiteral(": ") + message;
      return std::nullopt;
    }
    return reply;
  }
}

void AgentConnection::showModelOutput(const QString& text) const {
  if (text.isEmpty()) return;
  // What the model printed on the host (captured there, never on the wire as protocol): a few lines.
  constexpr int kLines = 20;
  const QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  for (int i = 0; i < std::min<qsizetype>(kLines, lines.size()); ++i)
    say(QStringLiteral("the model printed: ") + hostText(lines[i], 300));
  if (lines.size() > kLines) say(QStringLiteral("the model printed %1 more lines").arg(lines.size() - kLines));
}

}  // namespace graft::core::remote
