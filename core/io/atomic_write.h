#pragma once
// Writes a whole file through an OutputFile (output_file.h): the old content stays intact unless
// every byte landed, and nothing is written through a link put at the path after it was checked.
// A path that exists and is not a regular file (a device such as /dev/full, a FIFO, a folder)
// is refused: it would be replaced by a regular file.
#include <QtCore/QByteArray>
#include <QtCore/QString>

#include "core/io/file_policy.h"

#include <functional>
#include <ostream>

namespace graft::core::io {

// Returns an empty string on success, else why it failed. The output
// policy (file_policy.h) holds: `inputs` are never written over.
QString writeAtomically(const QString& path, const QByteArray& bytes, const QStringList& inputs = {});

// Streams into `path` atomically: `write` gets a std::ostream over the save file, so a large
// model is never held in memory whole. A failed write (a full disk) is reported, never thrown.
QString streamAtomically(const QString& path, const std::function<void(std::ostream&)>& write,
                         const QStringList& inputs = {});

}  // namespace graft::core::io
