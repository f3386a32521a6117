#pragma once
// "1 match", "3 matches", "… (57 times)": counts in messages read as English, without a
// translation catalogue.
#include <QtCore/QHash>
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace graft::core::model {

inline QString counted(qint64 n, const QString& singular, const QString& plural) {
  return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? singular : plural);
}

// Each distinct line once, in first-seen order, a repeated one counted: "… (57 times)". A rule
// skipped at 57 sites for one reason reads as one line.
inline QStringList countedRepeats(const QStringList& lines) {
  QStringList distinct;
  QHash<QString, int> times;
  for (const QString& line : lines)
    if (times[line]++ == 0) distinct << line;
  for (QString& line : distinct)
    if (const int n = times.value(line); n > 1) line += QStringLiteral(" (%1 times)").arg(n);
  return distinct;
}

}  // namespace graft::core::model
