#pragma once
// Writes a whole file through QSaveFile: the old content stays intact unless every byte landed.
#include <QtCore/QByteArray>
#include <QtCore/QString>

namespace graft::core::io {

// Returns an empty string on success, else why it failed (QSaveFile's error string).
QString writeAtomically(const QString& path, const QByteArray& bytes);

}  // namespace graft::core::io
