#include "core/remote/agent_pool.h"

#include <QtCore/QCoreApplication>

namespace graft::core::remote {

namespace {
QString keyOf(const RemoteDevice& device) { return device.host + QLatin1Char('\n') + device.python; }

// Closes a connection on the calling thread (its agent gets a bye). Never throws.
void close(std::unique_ptr<AgentConnection> connection) noexcept {
  try {
    if (connection) connection->takeThread();
  } catch (...) {
  }
  connection.reset();  // ~AgentConnection never throws
}
}  // namespace

AgentPool::Lease::~Lease() noexcept {
  if (connection_) pool_->giveBack(key_, std::move(connection_));
}

AgentPool::~AgentPool() noexcept { clear(true); }

AgentPool::Lease AgentPool::lease(const RemoteDevice& device, AgentConnection::Progress progress,
                                  const std::atomic<bool>* cancel) {
  const QString key = keyOf(device);
  QString droppedWhy;
  for (;;) {
    std::unique_ptr<AgentConnection> candidate;
    bool stale = false;
    {
      std::lock_guard lock(mutex_);
      auto it = idle_.find(key);
      if (it != idle_.end() && !it->second.empty()) {
        stale = it->second.back().since.hasExpired(qint64(idleSeconds_) * 1000);
        candidate = std::move(it->second.back().connection);
        it->second.pop_back();
      } else {
        droppedWhy = dropped_.take(key);
        ++started_;
        break;
      }
    }
    candidate->takeThread();
    if (!stale && candidate->reusable()) {
      candidate->beginJob(device, std::move(progress), cancel);
      return Lease(this, key, std::move(candidate));
    }
    if (!stale && !candidate->dropReason().isEmpty()) droppedWhy = candidate->dropReason();
    else if (!stale) droppedWhy = QStringLiteral("the agent ended while idle");
    close(std::move(candidate));
    if (!droppedWhy.isEmpty()) {
      std::lock_guard lock(mutex_);
      dropped_.insert(key, droppedWhy);
    }
  }
  auto fresh = std::make_unique<AgentConnection>(device, std::move(progress), cancel);
  fresh->setAgentIdleLimit(idleSeconds_ + 60);
  if (!droppedWhy.isEmpty()) fresh->noteReconnect(droppedWhy);
  fresh->start();
  return Lease(this, key, std::move(fresh));
}

void AgentPool::giveBack(const QString& key, std::unique_ptr<AgentConnection> connection) noexcept {
  try {
    connection->endJob();
    const bool keep = connection->reusable();
    if (keep) connection->releaseThread();
    std::unique_lock lock(mutex_);
    if (keep && !closed_) {
      Idle idle{std::move(connection), {}};
      idle.since.start();
      idle_[key].push_back(std::move(idle));
      return;
    }
    if (!connection->dropReason().isEmpty()) dropped_.insert(key, connection->dropReason());
    lock.unlock();
  } catch (...) {
  }
  close(std::move(connection));
}

void AgentPool::clear(bool forGood) noexcept {
  std::vector<std::unique_ptr<AgentConnection>> closing;
  try {
    std::lock_guard lock(mutex_);
    if (forGood) closed_ = true;
    for (auto& [key, list] : idle_)
      for (Idle& i : list) closing.push_back(std::move(i.connection));
    idle_.clear();
  } catch (...) {
  }
  for (auto& c : closing) close(std::move(c));
}

int AgentPool::agentsStarted() const {
  std::lock_guard lock(mutex_);
  return started_;
}

int AgentPool::idleConnections() const {
  std::lock_guard lock(mutex_);
  int n = 0;
  for (const auto& [key, list] : idle_) n += int(list.size());
  return n;
}

namespace {
AgentPool* shared = nullptr;
void clearShared() { shared->clear(true); }
}  // namespace

AgentPool& sharedAgentPool() {
  // Never destroyed: a job thread may still give a connection back while the process exits; the
  // agents are closed (with a bye) when the application object ends.
  static AgentPool* pool = [] {
    shared = new AgentPool();
    if (QCoreApplication::instance()) qAddPostRoutine(clearShared);
    return shared;
  }();
  return *pool;
}

}  // namespace graft::core::remote
