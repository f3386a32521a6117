#include "app/cli/watchdog.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace graft::cli {

QString startWatchdog(const QString& command, const QStringList& arguments) {
  QString value;
  for (qsizetype i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == QLatin1String("--timeout") && i + 1 < arguments.size()) value = arguments[i + 1];
    if (arguments[i].startsWith(QLatin1String("--timeout="))) value = arguments[i].mid(10);
  }
  if (value.isEmpty()) return {};
  bool ok = false;
  const double seconds = value.toDouble(&ok);
  if (!ok || !(seconds > 0))
    return QStringLiteral("--timeout takes a positive number of seconds, not \"%1\"").arg(value);
  const bool json = arguments.contains(QLatin1String("--json"));
  const QByteArray message = QStringLiteral("graft-cli %1 ran longer than %2 s and was stopped (--timeout).")
                                 .arg(command, value).toUtf8();
  std::thread([seconds, json, message] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    if (json)
      std::fprintf(stdout, "{\"diagnostics\": [{\"severity\": \"error\", \"job\": \"run\", \"message\": \"%s\"}]}\n",
                   message.constData());
    std::fprintf(stderr, "error: %s\n", message.constData());
    std::fflush(nullptr);
    std::_Exit(2);
  }).detach();
  return {};
}

}  // namespace graft::cli
