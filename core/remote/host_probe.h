#pragma once
// "Test connection" for a host: connects as a job would (ssh, the agent, hello on the host's
// CPU) and reports what the host offers: its torch, Python and CUDA devices by name.
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <atomic>

namespace graft::core::remote {

struct HostProbe {
  QString host;  // as asked
  bool ok = false;
  QString error;  // "gpu-box: ssh failed: …", "gpu-box: no torch in /usr/bin/python3 (…)"
  QString hostName, python, pythonVersion, torch;
  QStringList gpus;  // cuda:0's name first; empty without CUDA
  QString summary() const;  // "gpu-box (hostname): torch 2.11.0, Python 3.11.2; cuda:0 NVIDIA H100", or the error
};

// Blocking (call it off the GUI thread); `python` empty: the host's own python3 that imports
// torch. `cancel` ends the connection. Never throws.
HostProbe probeHost(const QString& host, const QString& python, const std::atomic<bool>* cancel = nullptr);

}  // namespace graft::core::remote
