#include "ui/recent_files.h"

#include <QtCore/QFileInfo>
#include <QtCore/QSettings>

namespace graft::ui {

namespace {
constexpr int kMaxRecent = 10;
const char* const kKey = "recentFiles";
}  // namespace

QStringList recentFiles() { return QSettings().value(QLatin1String(kKey)).toStringList(); }

void addRecentFile(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = recentFiles();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecent) files.removeLast();
  QSettings().setValue(QLatin1String(kKey), files);
}

void clearRecentFiles() { QSettings().remove(QLatin1String(kKey)); }

}  // namespace graft::ui
