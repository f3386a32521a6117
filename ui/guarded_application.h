#pragma once
// The GUI's last job boundary: an exception thrown by any event handler (a slot, a paint, a
// queued call) is caught in notify(), reported in a message box and on stderr, and the event loop
// goes on. Qt cannot carry exceptions through its event loop; without this they end the process.
#include <QtWidgets/QApplication>

namespace graft::ui {

class GuardedApplication : public QApplication {
  Q_OBJECT
 public:
  GuardedApplication(int& argc, char** argv) : QApplication(argc, argv) {}
  bool notify(QObject* receiver, QEvent* event) override;

 Q_SIGNALS:
  // Emitted (queued) with the message of each exception caught.
  void exceptionCaught(const QString& message);
};

}  // namespace graft::ui
