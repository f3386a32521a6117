#include "ui/run_settings.h"

#include "core/run/threads.h"

#include <QtCore/QSettings>
#include <QtWidgets/QInputDialog>

namespace graft::ui {

namespace {
const char* const kThreadsKey = "run/threads";
}

void applySavedThreads() {
  core::run::useThreads(QSettings().value(QLatin1String(kThreadsKey), 0).toInt());
}

bool askThreads(QWidget* parent) {
  const int cores = core::run::physicalCores();
  bool ok = false;
  const int n = QInputDialog::getInt(
      parent, QObject::tr("Threads"),
      QObject::tr("Intra-op threads for runs, compares and profiles\n(this machine has %1 physical cores; "
                  "PyTorch uses one per core):")
          .arg(cores),
      core::run::currentThreads(), 1, 256, 1, &ok);
  if (!ok) return false;
  QSettings().setValue(QLatin1String(kThreadsKey), n == cores ? 0 : n);
  core::run::useThreads(n);
  return true;
}

}  // namespace graft::ui
