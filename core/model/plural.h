#pragma once
// "1 match", "3 matches": counts in messages read as English, without a translation catalogue.
#include <QtCore/QString>

namespace graft::core::model {

inline QString counted(qint64 n, const QString& singular, const QString& plural) {
  return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? singular : plural);
}

}  // namespace graft::core::model
