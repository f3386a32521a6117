#include "core/io/save.h"

#include "core/io/atomic_write.h"
#include "core/model/revision.h"

#include <torch/script.h>

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
  const std::string data = bytes.str();
  const QString why = writeAtomically(path, QByteArray(data.data(), static_cast<qsizetype>(data.size())));
  if (!why.isEmpty()) return {false, QStringLiteral("Cannot write %1: %2").arg(path, why)};
  return {true, {}};
}

}  // namespace graft::core::io
