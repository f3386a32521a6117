#pragma once
// The most recently opened model files, kept in QSettings.
#include <QtCore/QStringList>

namespace graft::ui {

QStringList recentFiles();
void addRecentFile(const QString& path);
void clearRecentFiles();

}  // namespace graft::ui
