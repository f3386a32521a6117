#pragma once
// The options that say how two sides run and what counts as equal, shared by compare and reduce:
// --input, --seed, --atol, --rtol, --device, --device-b, --dtype-a, --dtype-b, --autocast.
#include "core/remote/remote_device.h"
#include "core/run/compare.h"

#include <QtCore/QCommandLineParser>

namespace graft::cli {

void addSideOptions(QCommandLineParser& parser);

// Reads them into `options` (tolerance defaults follow the lower precision) and `seed`; on a bad
// value reports it and returns false. A remote --device-b (ssh://HOST/DEVICE) is accepted only
// where the caller passes `remoteB`: it is set, and options.deviceB is the host's device.
bool readSideOptions(const QCommandLineParser& parser, core::run::CompareOptions& options, quint64& seed,
                     std::optional<core::remote::RemoteDevice>* remoteB = nullptr);

}  // namespace graft::cli
