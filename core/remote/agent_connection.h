#pragma once
// One connection to Graft's agent on a host (python/graft/agent.py): starts `ssh HOST ...`,
// sends the agent when the host has not cached it, checks the device, and then exchanges framed
// messages (a JSON header line, then header["bytes"] raw bytes) on the connection's stdin and
// stdout. Synchronous: the job's thread waits, polling its cancel flag. Every error names the
// host and the cause (ssh failed, no torch, no CUDA, the agent died).
// A connection outlives its job: agent_pool.h keeps it between jobs, and each job takes it with
// beginJob (its device, progress and cancel flag) and opens it (a hello only when the settings
// changed).
#include "core/remote/remote_device.h"

#include <QtCore/QByteArray>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QSet>
#include <QtCore/QString>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>

namespace graft::core::remote {

struct AgentReply {
  QJsonObject header;
  QByteArray payload;
};

// Graft's agent source, as sent to hosts, and its SHA-256 (hex).
const QByteArray& agentSource();
QString agentSha256();

class AgentConnection {
 public:
  using Progress = std::function<void(const QString& line)>;  // "gpu-box: sending the model (44.7 MB)"
  AgentConnection(RemoteDevice device, Progress progress = {}, const std::atomic<bool>* cancel = nullptr);
  ~AgentConnection() noexcept;  // says bye and ends the agent; never throws
  AgentConnection(const AgentConnection&) = delete;
  AgentConnection& operator=(const AgentConnection&) = delete;

  // Launches ssh without waiting, so the host starts Python and imports torch while this side
  // does its own work (runs A, saves the revision); open() then waits for it. Optional.
  void start();

  // Connects (start() unless called), bootstraps the agent and says hello (the device, TF32 mode, threads). On failure
  // returns false with `error` naming the host and the cause. On a connection already open, says
  // hello again only when `hello` or the device differ from the last one.
  bool open(const QJsonObject& hello, QString* error);

  // For a pooled connection (agent_pool.h): the next job's device (same host and Python), progress
  // and cancel flag; the byte and round-trip counts start again from zero.
  void beginJob(const RemoteDevice& device, Progress progress, const std::atomic<bool>* cancel);
  void endJob();  // forgets the job's progress callback and cancel flag
  // Safe to hand to the next job: ssh still runs and no request is half-done (never reuse a
  // connection mid-reply). Polls the process, so call it from the thread that holds it.
  bool reusable();
  // Why the connection ended unasked (the agent or ssh died: the error the job got), or empty.
  const QString& dropReason() const { return dropReason_; }
  // Said once the agent is ready on a fresh connection that replaces one that dropped.
  void noteReconnect(const QString& why) { reconnectNote_ = why; }
  // The agent ends itself after this long without a request (0: never), sent in its hello.
  void setAgentIdleLimit(int seconds) { agentIdleSeconds_ = seconds; }
  // The process object moves between job threads: released by the thread that used it last, and
  // taken by the next (QObject thread affinity).
  void releaseThread();
  void takeThread();
  // Whether the agent already holds the model with this SHA-256 (sent or found on this connection).
  bool holdsModel(const QString& sha256) const { return modelsHeld_.contains(sha256); }
  void noteModelHeld(const QString& sha256) { modelsHeld_.insert(sha256); }

  // One request and its reply; "progress" messages on the way go to the progress callback, and
  // what the model printed on the host ("model_output") too, as escaped text.
  // A reply with "ok": false becomes `error` ("HOST: <message>"), as does a dropped connection,
  // and a reply past the bounds of reply_limits.h ("HOST: reply too large ...").
  std::optional<AgentReply> request(QJsonObject header, const QByteArray& payload, const QString& what, QString* error);

  const RemoteDevice& device() const { return device_; }
  const QJsonObject& hello() const { return hello_; }
  // "gpu-box:cuda:0, NVIDIA H100 80GB HBM3, torch 2.11.0+cu130"
  QString deviceLabel() const;
  qint64 bytesSent() const { return sent_; }
  qint64 bytesReceived() const { return received_; }
  int roundTrips() const { return roundTrips_; }
  // A progress line about this host ("HOST: line"), through the progress callback.
  void say(const QString& line) const;

 private:
  bool reopen(const QJsonObject& hello, QString* error);  // open() on a running agent
  bool sayHello(const QJsonObject& hello, QString* error);  // the settings to the agent; its reply kept
  bool write(const QByteArray& bytes, const QString& what, QString* error);
  std::optional<QByteArray> readLine(const QString& what, QString* error);
  std::optional<QByteArray> readExactly(qint64 size, const QString& what, QString* error);
  bool waitForData(const QString& what, QString* error);
  bool take(const QByteArray& chunk, const QString& what, QString* error);  // into buffer_, bounded
  bool drainStderr();  // true when the host wrote something
  bool cancelled(const QString& what, QString* error);
  bool tooLarge(const QString& what, const QString& why, QString* error);  // ends the job
  void end(int graceMs);  // closes stdin (the agent ends its process group), then kills ssh
  void showModelOutput(const QString& text) const;
  QString endedMessage(const QString& what);

  RemoteDevice device_;
  Progress progress_;
  const std::atomic<bool>* cancel_;
  std::unique_ptr<QProcess> process_;
  QByteArray buffer_;
  qint64 allowed_ = qint64(80) << 20;  // what buffer_ may hold now: a header line and some slack
  QByteArray stderr_;                    // the last kStderrKept bytes of the host's stderr
  int stderrFd_ = -1;                    // our end of the host's stderr
  QJsonObject hello_;
  QJsonObject lastHello_;   // the hello last sent (with the device): a pooled job with the same one skips it
  bool bootstrapped_ = false;
  bool inFlight_ = false;   // a request (or the bootstrap) was begun and its reply not read whole
  QString dropReason_;
  QString reconnectNote_;
  int agentIdleSeconds_ = 0;
  QSet<QString> modelsHeld_;
  qint64 sent_ = 0, received_ = 0;
  int roundTrips_ = 0;
};

// "44.7 MB", "12.3 KB", "512 B"
QString byteCount(qint64 bytes);

}  // namespace graft::core::remote
