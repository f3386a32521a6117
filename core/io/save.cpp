#include "core/io/save.h"

#include "core/model/revision.h"

#include <torch/script.h>

#include <QtCore/QSaveFile>
#include <sstream>

namespace graft::core::io {

SaveResult saveRevision(const model::Revision& revision, const QString& path) {
  std::ostringstream bytes;
  try {
    revision.runnable().save(bytes);
  } catch (const c10::Error& e) {
    return {false, QStringLiteral("The revision could not be serialised: %1")
                       .arg(QString::fromStdString(e.what_without_backtrace()).section(QLatin1Char('\n'), 0, 0))};
  } catch (const std::exception& e) {
    return {false, QStringLiteral("The revision could not be serialised: %1").arg(QString::fromUtf8(e.what()))};
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return {false, QStringLiteral("Cannot write %1: %2").arg(path, file.errorString())};
  const std::string data = bytes.str();
  if (file.write(data.data(), static_cast<qint64>(data.size())) != static_cast<qint64>(data.size()) || !file.commit())
    return {false, QStringLiteral("Writing %1 failed: %2").arg(path, file.errorString())};
  return {true, {}};
}

}  // namespace graft::core::io
