#include "ui/guarded_application.h"

#include "core/model/job_guard.h"

#include <QtWidgets/QMessageBox>
#include <cstdio>

namespace graft::ui {

bool GuardedApplication::notify(QObject* receiver, QEvent* event) {
  return core::model::guarded([&] { return QApplication::notify(receiver, event); }, [this](const QString& why) {
    std::fprintf(stderr, "graft: an operation failed: %s\n", qPrintable(why));
    // Shown after this event is done: a dialog opened inside notify() would nest event loops.
    QMetaObject::invokeMethod(this, [this, why] {
      Q_EMIT exceptionCaught(why);
      QMessageBox::warning(activeWindow(), tr("Graft"), tr("An operation failed and was abandoned:\n%1").arg(why));
    }, Qt::QueuedConnection);
    return false;
  });
}

}  // namespace graft::ui
