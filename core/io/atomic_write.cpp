#include "core/io/atomic_write.h"

#include <QtCore/QSaveFile>

namespace graft::core::io {

QString writeAtomically(const QString& path, const QByteArray& bytes) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
    const QString why = file.errorString();
    return why.isEmpty() ? QStringLiteral("write failed") : why;
  }
  return {};
}

}  // namespace graft::core::io
