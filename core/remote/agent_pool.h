#pragma once
// Live agent connections kept between jobs, so a job on a host whose agent is already running
// pays no ssh, no Python start, no `import torch`, and finds its model loaded (python/graft/
// agent.py keeps loaded models in memory). Keyed by host and Python: the device is part of each
// job's hello, so Test connection, a CPU job and a CUDA job share one agent.
// One job at a time per connection: a job leases one (an idle one, or a new one started for
// it) and the lease gives it back when the job ends. A connection that cannot serve the next
// job (the agent died, the job was cancelled mid-reply) is closed instead, and the next job on
// that host starts a new agent and says "HOST: reconnected". Thread-safe: jobs lease from worker
// threads. A connection idle past the idle limit is closed at the next lease, and the agent
// ends itself a minute after that limit, so a forgotten agent does not stay.
#include "core/remote/agent_connection.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QHash>
#include <QtCore/QString>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace graft::core::remote {

class AgentPool {
 public:
  static constexpr int kDefaultIdleSeconds = 600;

  // A connection held by one job; gives it back to the pool when destroyed (never throws).
  class Lease {
   public:
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    ~Lease() noexcept;
    AgentConnection& operator*() const { return *connection_; }
    AgentConnection* operator->() const { return connection_.get(); }

   private:
    friend class AgentPool;
    Lease(AgentPool* pool, QString key, std::unique_ptr<AgentConnection> connection)
        : pool_(pool), key_(std::move(key)), connection_(std::move(connection)) {}
    AgentPool* pool_;
    QString key_;
    std::unique_ptr<AgentConnection> connection_;
  };

  explicit AgentPool(int idleSeconds = kDefaultIdleSeconds) : idleSeconds_(idleSeconds) {}
  ~AgentPool() noexcept;  // closes the idle connections (their agents end)
  AgentPool(const AgentPool&) = delete;
  AgentPool& operator=(const AgentPool&) = delete;

  // A connection to `device`'s host for one job, with the job's progress and cancel flag: an
  // idle one of this pool, or a new one, already started (ssh and the host's Python come up
  // while the job does its own work; open() then waits for them).
  Lease lease(const RemoteDevice& device, AgentConnection::Progress progress, const std::atomic<bool>* cancel);

  // Closes the idle connections. With `forGood`, connections given back later are closed too
  // (the application is quitting).
  void clear(bool forGood = false) noexcept;

  int agentsStarted() const;  // connections this pool has started (ssh processes)
  int idleConnections() const;

 private:
  struct Idle {
    std::unique_ptr<AgentConnection> connection;
    QElapsedTimer since;
  };
  void giveBack(const QString& key, std::unique_ptr<AgentConnection> connection) noexcept;

  const int idleSeconds_;
  mutable std::mutex mutex_;
  std::map<QString, std::vector<Idle>> idle_;
  QHash<QString, QString> dropped_;  // host key -> why its last connection ended unasked
  int started_ = 0;
  bool closed_ = false;
};

// The process's pool: every remote job of the window, or of one graft-cli run, takes its
// connection here. Cleared when the QCoreApplication ends.
AgentPool& sharedAgentPool();

}  // namespace graft::core::remote
