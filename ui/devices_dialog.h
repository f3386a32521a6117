#pragma once
// Run > Devices…: the hosts whose devices the window offers (a host is what `ssh HOST` reaches,
// with an optional Python path), kept in QSettings (ui/device_list), and a Test connection that
// connects in the background and says what the host offers or why it cannot be reached.
#include "ui/device_list.h"

#include <QtCore/QFutureWatcher>
#include <QtWidgets/QDialog>
#include <atomic>
#include <memory>

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace graft::core::remote { struct HostProbe; }

namespace graft::ui {

class DevicesDialog : public QDialog {
  Q_OBJECT
 public:
  explicit DevicesDialog(QWidget* parent = nullptr);
  ~DevicesDialog() override;

  // Adds (or updates) `host` with `python` and selects it; false with the reason shown when the
  // name is not one ssh takes.
  bool addHost(const QString& host, const QString& python);
  // Removes the selected host.
  void removeSelected();
  // Connects to the host and Python in the fields, off the GUI thread; testFinished() follows.
  void testConnection();
  bool isTesting() const;
  // The answer shown under the buttons: what the host offers, or the error naming it.
  QString resultText() const;

 Q_SIGNALS:
  void hostsChanged();
  void testFinished(bool ok);

 private:
  void reload();
  void selected();
  void pythonEdited();
  void showProbe(const core::remote::HostProbe& probe);

  QVector<RemoteHost> hosts_;
  QListWidget* list_ = nullptr;
  QLineEdit* host_ = nullptr;
  QLineEdit* python_ = nullptr;
  QPushButton* add_ = nullptr;
  QPushButton* remove_ = nullptr;
  QPushButton* test_ = nullptr;
  QLabel* result_ = nullptr;
  QFutureWatcher<void> watcher_;
  std::shared_ptr<std::atomic<bool>> cancel_;
};

}  // namespace graft::ui
