#include "core/remote/host_probe.h"

#include "core/model/job_guard.h"
#include "core/remote/agent_connection.h"
#include "core/remote/agent_pool.h"

#include <QtCore/QJsonArray>

namespace graft::core::remote {

QString HostProbe::summary() const {
  if (!ok) return error;
  QString line = host;
  if (!hostName.isEmpty() && hostName != host) line += QStringLiteral(" (%1)").arg(hostName);
  line += QStringLiteral(": torch %1, Python %2").arg(torch, pythonVersion);
  if (gpus.isEmpty()) return line + QStringLiteral("; no CUDA device");
  QStringList named;
  for (int i = 0; i < gpus.size(); ++i) named << QStringLiteral("cuda:%1 %2").arg(i).arg(gpus[i]);
  return line + QStringLiteral("; ") + named.join(QStringLiteral(", "));
}

HostProbe probeHost(const QString& host, const QString& python, const std::atomic<bool>* cancel) {
  HostProbe probe;
  probe.host = host;
  return model::guarded(
      [&] {
        // The CPU always exists: the hello checks torch, and names the GPUs on request.
        // The host's agent, as the next job will use it (agent_pool.h).
        AgentPool::Lease lease = sharedAgentPool().lease({host, QStringLiteral("cpu"), python}, {}, cancel);
        AgentConnection& connection = *lease;
        if (!connection.open({{QStringLiteral("list_devices"), true}}, &probe.error)) return probe;
        const QJsonObject& hello = connection.hello();
        probe.hostName = hello.value(QStringLiteral("host")).toString();
        probe.python = hello.value(QStringLiteral("python")).toString();
        probe.pythonVersion = hello.value(QStringLiteral("python_version")).toString();
        probe.torch = hello.value(QStringLiteral("torch")).toString();
        for (const auto gpu : hello.value(QStringLiteral("cuda_devices")).toArray()) probe.gpus << gpu.toString();
        probe.ok = true;
        return probe;
      },
      [&](const QString& why) {
        probe.error = host + QStringLiteral(": ") + why;
        return probe;
      });
}

}  // namespace graft::core::remote
