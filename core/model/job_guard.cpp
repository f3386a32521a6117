#include "core/model/job_guard.h"

#include <c10/util/Exception.h>

#include <QtCore/QStringList>

#include <new>

namespace graft::core::model {

QString currentExceptionText() {
  std::string what;
  try {
    throw;
  } catch (const std::bad_alloc&) {
    what = "ran out of memory (std::bad_alloc)";
  } catch (const c10::Error& e) {
    what = e.what_without_backtrace();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "unknown exception";
  }
  return firstLines(what);
}

QString firstLines(const std::string& what) {
  QStringList lines = QString::fromStdString(what).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  while (lines.size() > 4) lines.removeLast();
  return lines.join(QStringLiteral(" | "));
}

}  // namespace graft::core::model
