#pragma once
// A device on another machine: `ssh://HOST/DEVICE[?python=PATH]` (docs/remote.md). HOST is what
// `ssh HOST` reaches with the user's own config, keys and agent; DEVICE is `cpu` or `cuda[:N]`
// there; PATH names the host's Python (default: the first python3 on its PATH that imports torch).
#include <QtCore/QString>
#include <optional>

namespace graft::core::remote {

struct RemoteDevice {
  QString host;    // "gpu-box", "user@gpu-box", an ssh_config alias
  QString device;  // "cpu", "cuda:0" (a bare "cuda" is "cuda:0")
  QString python;  // empty: discovered on the host
  QString spec() const;  // back to ssh://HOST/DEVICE[?python=PATH]
};

// Whether `name` is a remote device (starts with ssh://).
bool isRemoteDevice(const QString& name);

// Parses ssh://HOST/DEVICE[?python=PATH]; nullopt with `error` set ("ssh://HOST/DEVICE needs a
// DEVICE: cpu or cuda[:N]") when it is not one.
std::optional<RemoteDevice> parseRemoteDevice(const QString& name, QString* error);

}  // namespace graft::core::remote
