#pragma once
// `--timeout N` for every graft-cli command: a run that has not finished after N seconds (a model
// whose forward never ends, a load that takes forever) ends the process with exit 2 and
// "ran longer than N s". The work runs in-process and cannot be stopped midway, so the process
// ends: nothing has been written by then but whole files (writes are atomic).
#include <QtCore/QStringList>

namespace graft::cli {

// Reads --timeout N (or --timeout=N) from `arguments`; starts the watchdog when given. Returns an
// error text for a value that is not a positive number, empty otherwise.
QString startWatchdog(const QString& command, const QStringList& arguments);

}  // namespace graft::cli
