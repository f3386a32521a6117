#include "ui/device_list.h"

#include <QtWidgets/QComboBox>

#include "core/remote/remote_device.h"
#include "core/run/compare_job.h"

#include <QtCore/QSettings>

namespace graft::ui {

namespace {
const char* const kHostsKey = "devices/hosts";
}

QVector<RemoteHost> savedHosts() {
  QVector<RemoteHost> hosts;
  QSettings settings;
  const int n = settings.beginReadArray(QLatin1String(kHostsKey));
  for (int i = 0; i < n; ++i) {
    settings.setArrayIndex(i);
    RemoteHost h;
    h.host = settings.value(QStringLiteral("host")).toString();
    h.python = settings.value(QStringLiteral("python")).toString();
    h.tested = settings.value(QStringLiteral("tested"), false).toBool();
    h.gpus = settings.value(QStringLiteral("gpus")).toStringList();
    if (!h.host.isEmpty()) hosts.push_back(h);
  }
  settings.endArray();
  return hosts;
}

void saveHosts(const QVector<RemoteHost>& hosts) {
  QSettings settings;
  settings.remove(QLatin1String(kHostsKey));
  settings.beginWriteArray(QLatin1String(kHostsKey), int(hosts.size()));
  for (int i = 0; i < hosts.size(); ++i) {
    settings.setArrayIndex(i);
    settings.setValue(QStringLiteral("host"), hosts[i].host);
    settings.setValue(QStringLiteral("python"), hosts[i].python);
    settings.setValue(QStringLiteral("tested"), hosts[i].tested);
    settings.setValue(QStringLiteral("gpus"), hosts[i].gpus);
  }
  settings.endArray();
}

QVector<DeviceChoice> deviceChoices() {
  QVector<DeviceChoice> choices;
  for (const QString& d : core::run::localDevices()) choices.push_back({d, d, {}});
  for (const RemoteHost& h : savedHosts()) {
    QStringList devices{QStringLiteral("cpu")};
    QStringList names{QString()};
    if (!h.tested) {
      devices << QStringLiteral("cuda:0");
      names << QString();
    }
    for (int i = 0; i < h.gpus.size(); ++i) {
      devices << QStringLiteral("cuda:%1").arg(i);
      names << h.gpus[i];
    }
    for (int i = 0; i < devices.size(); ++i) {
      const core::remote::RemoteDevice remote{h.host, devices[i], h.python};
      choices.push_back({QStringLiteral("ssh://%1/%2").arg(h.host, devices[i]), remote.spec(), names[i]});
    }
  }
  return choices;
}

void fillDeviceCombo(QComboBox* combo) {
  const QString chosen = combo->currentText();
  combo->clear();
  for (const DeviceChoice& d : deviceChoices()) {
    combo->addItem(d.label, d.spec);
    if (!d.tip.isEmpty()) combo->setItemData(combo->count() - 1, d.tip, Qt::ToolTipRole);
  }
  if (const int i = combo->findText(chosen); i >= 0) combo->setCurrentIndex(i);
}

}  // namespace graft::ui
