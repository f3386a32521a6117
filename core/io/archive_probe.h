#pragma once
// Looks inside a file before libtorch does, to say what it is when it is not a TorchScript module.
#include "core/io/load_error.h"

namespace graft::core::io {

// Returns an error when `path` is certainly not a loadable TorchScript archive, None otherwise.
LoadError probeArchive(const QString& path);

// Turns an exception message from torch::jit::load into a worded error.
LoadError classifyLoadFailure(const QString& path, const QString& libtorchMessage);

}  // namespace graft::core::io
