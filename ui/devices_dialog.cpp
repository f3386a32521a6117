#include "ui/devices_dialog.h"

#include "core/remote/host_probe.h"
#include "core/remote/remote_device.h"

#include <QtConcurrent/QtConcurrent>
#include <QtWidgets/QDialogButtonBox>
#include <QtWidgets/QFormLayout>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

DevicesDialog::DevicesDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Devices"));
  setObjectName(QStringLiteral("devicesDialog"));
  auto* intro =
      new QLabel(tr("Runs can use this machine's CPU and GPUs, and those of hosts you reach with ssh. A host is what "
                    "<tt>ssh HOST</tt> reaches (an alias of ~/.ssh/config, user@host); it needs Python and torch, "
                    "nothing else."),
                 this);
  intro->setWordWrap(true);
  list_ = new QListWidget(this);
  list_->setObjectName(QStringLiteral("devicesHosts"));
  host_ = new QLineEdit(this);
  host_->setObjectName(QStringLiteral("devicesHost"));
  host_->setPlaceholderText(tr("gpu-box, user@gpu-box"));
  python_ = new QLineEdit(this);
  python_->setObjectName(QStringLiteral("devicesPython"));
  python_->setPlaceholderText(tr("default: the first python3 on the host's PATH that imports torch"));
  add_ = new QPushButton(tr("Add"), this);
  remove_ = new QPushButton(tr("Remove"), this);
  test_ = new QPushButton(tr("Test connection"), this);
  test_->setObjectName(QStringLiteral("devicesTest"));
  result_ = new QLabel(this);
  result_->setObjectName(QStringLiteral("devicesResult"));
  result_->setWordWrap(true);
  result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* form = new QFormLayout();
  form->addRow(tr("Host"), host_);
  form->addRow(tr("Python"), python_);
  auto* buttons = new QHBoxLayout();
  buttons->addWidget(add_);
  buttons->addWidget(remove_);
  buttons->addStretch(1);
  buttons->addWidget(test_);
  auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addWidget(list_, 1);
  layout->addLayout(form);
  layout->addLayout(buttons);
  layout->addWidget(result_);
  layout->addWidget(close);
  resize(560, 420);

  connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(add_, &QPushButton::clicked, this, [this] { addHost(host_->text().trimmed(), python_->text().trimmed()); });
  connect(remove_, &QPushButton::clicked, this, &DevicesDialog::removeSelected);
  connect(test_, &QPushButton::clicked, this, &DevicesDialog::testConnection);
  connect(list_, &QListWidget::currentRowChanged, this, &DevicesDialog::selected);
  connect(python_, &QLineEdit::editingFinished, this, &DevicesDialog::pythonEdited);
  reload();
}

DevicesDialog::~DevicesDialog() {
  // A test still connecting ends with its ssh; nothing waits for it.
  if (cancel_) cancel_->store(true);
}

void DevicesDialog::reload() {
  hosts_ = savedHosts();
  list_->clear();
  for (const auto& h : hosts_) {
    QString line = h.host;
    if (!h.python.isEmpty()) line += QStringLiteral("  (%1)").arg(h.python);
    if (h.tested) line += h.gpus.isEmpty() ? tr("  — cpu") : tr("  — cpu, %n GPU(s)", nullptr, int(h.gpus.size()));
    list_->addItem(line);
  }
  remove_->setEnabled(!hosts_.isEmpty());
}

void DevicesDialog::selected() {
  const int row = list_->currentRow();
  remove_->setEnabled(row >= 0);
  if (row < 0 || row >= hosts_.size()) return;
  host_->setText(hosts_[row].host);
  python_->setText(hosts_[row].python);
}

bool DevicesDialog::addHost(const QString& host, const QString& python) {
  QString error;
  if (host.isEmpty() || !core::remote::parseRemoteDevice(QStringLiteral("ssh://%1/cpu").arg(host), &error)) {
    result_->setText(host.isEmpty() ? tr("Name a host first.") : tr("'%1' is not a host ssh takes.").arg(host));
    result_->setStyleSheet(QStringLiteral("QLabel { color: #c62828; }"));
    return false;
  }
  int row = -1;
  for (int i = 0; i < hosts_.size(); ++i)
    if (hosts_[i].host == host) row = i;
  if (row < 0) {
    hosts_.push_back({host, python, false, {}});
    row = int(hosts_.size()) - 1;
  } else if (hosts_[row].python != python) {
    hosts_[row] = {host, python, false, {}};  // another Python may see other GPUs: test again
  }
  saveHosts(hosts_);
  reload();
  list_->setCurrentRow(row);
  Q_EMIT hostsChanged();
  return true;
}

void DevicesDialog::removeSelected() {
  const int row = list_->currentRow();
  if (row < 0 || row >= hosts_.size()) return;
  hosts_.removeAt(row);
  saveHosts(hosts_);
  reload();
  Q_EMIT hostsChanged();
}

void DevicesDialog::pythonEdited() {
  const int row = list_->currentRow();
  if (row < 0 || row >= hosts_.size() || hosts_[row].host != host_->text().trimmed()) return;
  if (hosts_[row].python != python_->text().trimmed()) addHost(hosts_[row].host, python_->text().trimmed());
}

bool DevicesDialog::isTesting() const { return watcher_.isRunning(); }

QString DevicesDialog::resultText() const { return result_->text(); }

void DevicesDialog::testConnection() {
  const QString host = host_->text().trimmed();
  QString error;
  if (isTesting()) return;
  if (host.isEmpty() || !core::remote::parseRemoteDevice(QStringLiteral("ssh://%1/cpu").arg(host), &error)) {
    result_->setText(host.isEmpty() ? tr("Name a host first.") : tr("'%1' is not a host ssh takes.").arg(host));
    result_->setStyleSheet(QStringLiteral("QLabel { color: #c62828; }"));
    Q_EMIT testFinished(false);
    return;
  }
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  auto out = std::make_shared<core::remote::HostProbe>();
  test_->setEnabled(false);
  result_->setStyleSheet(QString());
  result_->setText(tr("Connecting to %1…").arg(host));
  disconnect(&watcher_, nullptr, this, nullptr);
  connect(&watcher_, &QFutureWatcher<void>::finished, this, [this, out] {
    test_->setEnabled(true);
    showProbe(*out);
  });
  // ssh, Python and `import torch` take seconds: the window stays usable meanwhile.
  watcher_.setFuture(QtConcurrent::run([out, host, python = python_->text().trimmed(), cancel = cancel_] {
    *out = core::remote::probeHost(host, python, cancel.get());
  }));
}

void DevicesDialog::showProbe(const core::remote::HostProbe& probe) {
  result_->setText(probe.summary());
  result_->setStyleSheet(probe.ok ? QStringLiteral("QLabel { color: #2e7d32; }")
                                  : QStringLiteral("QLabel { color: #c62828; }"));
  if (probe.ok)
    for (int i = 0; i < hosts_.size(); ++i)
      if (hosts_[i].host == probe.host && hosts_[i].python == python_->text().trimmed()) {
        // What the test found is what the Compare dock offers for this host.
        hosts_[i].tested = true;
        hosts_[i].gpus = probe.gpus;
        saveHosts(hosts_);
        reload();
        list_->setCurrentRow(i);
        Q_EMIT hostsChanged();
      }
  Q_EMIT testFinished(probe.ok);
}

}  // namespace graft::ui
