#pragma once
// Looks inside a file before libtorch does, to say what it is when it is not a TorchScript module.
#include "core/io/load_error.h"

namespace caffe2::serialize { class PyTorchStreamReader; }

namespace graft::core::io {

// Returns an error when `path` is certainly not a loadable TorchScript archive, None otherwise.
LoadError probeArchive(const QString& path);

// Why an archive of `archiveSize` bytes is damaged when a record claims more than deflate could
// ever expand it to (1032:1): libtorch allocates a record's stated size before reading it. Empty
// when every record's size is possible.
QString checkRecordSizes(caffe2::serialize::PyTorchStreamReader& reader, qint64 archiveSize);

// Turns an exception message from torch::jit::load into a worded error.
LoadError classifyLoadFailure(const QString& path, const QString& libtorchMessage);

}  // namespace graft::core::io
