#pragma once
// One connection to Graft's agent on a host (python/graft/agent.py): starts `ssh HOST ...`,
// sends the agent when the host has not cached it, checks the device, and then exchanges framed
// messages (a JSON header line, then header["bytes"] raw bytes) on the connection's stdin and
// stdout. Synchronous: the job's thread waits, polling its cancel flag. Every error names the
// host and the cause (ssh failed, no torch, no CUDA, the agent died).
#include "core/remote/remote_device.h"

#include <QtCore/QByteArray>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
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
  // returns false with `error` naming the host and the cause.
  bool open(const QJsonObject& hello, QString* error);

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
  bool bootstrapped_ = false;
  qint64 sent_ = 0, received_ = 0;
  int roundTrips_ = 0;
};

// "44.7 MB", "12.3 KB", "512 B"
QString byteCount(qint64 bytes);

}  // namespace graft::core::remote
