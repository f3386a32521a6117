#pragma once
// The devices the window offers: this machine's (cpu, cuda:N where CUDA is available at run time)
// and those of the hosts the user added in the Devices dialog, kept in QSettings ("devices/hosts").
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVector>

class QComboBox;

namespace graft::ui {

// A host is what `ssh HOST` reaches (an ssh_config alias, user@host).
struct RemoteHost {
  QString host;
  QString python;     // empty: the host's first python3 that imports torch
  bool tested = false;  // a Test connection succeeded; then `gpus` is what it found
  QStringList gpus;   // cuda:0's name first
};

QVector<RemoteHost> savedHosts();
void saveHosts(const QVector<RemoteHost>& hosts);

struct DeviceChoice {
  QString label;  // "cpu", "cuda:0", "ssh://gpu-box/cuda:0"
  QString spec;   // what runs it: the label, with ?python=PATH for a host that names its Python
  QString tip;    // the GPU's name where a test found one
};

// This machine's devices, then each host's cpu and GPUs (those its last test found; cuda:0 for a
// host never tested).
QVector<DeviceChoice> deviceChoices();
// Fills `combo` with deviceChoices() (text: the label, data: the spec, tooltip: the GPU's name),
// keeping the chosen label where it is still offered.
void fillDeviceCombo(QComboBox* combo);

}  // namespace graft::ui
