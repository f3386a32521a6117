// graft-cli: Graft's jobs from the shell, with JSON output and meaningful exit codes.
#include "app/cli/commands.h"
#include "app/cli/model_output.h"
#include "app/cli/watchdog.h"
#include "core/io/file_policy.h"
#include "core/model/job_guard.h"
#include "core/report/versions.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QHash>
#include <QtGui/QGuiApplication>
#include <algorithm>
#include <cstring>
#include <memory>
#include <cstdio>

using namespace graft::cli;

namespace {

void printUsage(const std::vector<Command>& commands) {
  QString text = QStringLiteral(
      "Usage: graft-cli COMMAND [OPTIONS] MODEL\n"
      "See, rewrite and verify PyTorch model graphs (torch.export and TorchScript) from the shell.\n\n"
      "MODEL is a torch.export program (.pt2), a TorchScript archive (.pt) or --sample NAME (cnn, mlp, transformer).\n"
      "Every command takes --json for machine-readable output and --help for its options.\n"
      "Exit codes: 0 ok, 1 ran but the answer is no (e.g. outputs differ), 2 usage or input error,\n"
      "3 (compare) outputs equal but an intermediate beyond tolerance.\n\n"
      "Commands:\n");
  qsizetype widest = 0;
  for (const auto& c : commands) widest = std::max(widest, c.name.size());
  for (const auto& c : commands) text += QStringLiteral("  %1  %2\n").arg(c.name, -int(widest)).arg(c.summary);
  text += QStringLiteral("\nOptions:\n  -h, --help     Show this help.\n  -V, --version  Show the version.\n");
  printText(text);
}

// The job a command's own errors belong to (usage errors included).
QString jobOf(const QString& command) {
  static const QHash<QString, QString> jobs{{"layout", "layout"}, {"rules", "rewrite"}, {"rewrite", "rewrite"},
                                            {"compare", "compare"}, {"profile", "profile"}, {"replay", "edit"},
                                            {"shapes", "run"}, {"report", "save"}};
  return jobs.value(command, QStringLiteral("load"));
}

}  // namespace

int main(int argc, char** argv) {
  // A file size limit (`ulimit -f`) makes a write fail with a message, not kill the process.
  graft::core::io::ignoreFileSizeSignal();
  // A model's prints go to stderr, bounded: stdout carries graft-cli's own answer only.
  captureModelOutput();
  // `layout` and `report` paint (SVG/PNG) and so need a GUI application; a shell tool never needs a screen.
  const bool paints = argc > 1 && (std::strcmp(argv[1], "layout") == 0 || std::strcmp(argv[1], "report") == 0);
  if (paints) qputenv("QT_QPA_PLATFORM", "offscreen");
  std::unique_ptr<QCoreApplication> app(paints ? new QGuiApplication(argc, argv) : new QCoreApplication(argc, argv));
  QCoreApplication::setApplicationName(QStringLiteral("graft-cli"));
  QCoreApplication::setApplicationVersion(QStringLiteral(GRAFT_VERSION));
  QStringList args = QCoreApplication::arguments();
  args.removeFirst();
  const auto commands = allCommands();
  if (args.isEmpty()) {
    printUsage(commands);
    return kUsageOrInput;
  }
  const QString name = args.takeFirst();
  if (name == QLatin1String("-h") || name == QLatin1String("--help") || name == QLatin1String("help")) {
    printUsage(commands);
    return kOk;
  }
  if (name == QLatin1String("-V") || name == QLatin1String("--version")) {
    printText(
        QStringLiteral("graft-cli %1\n%2")
            .arg(QStringLiteral(GRAFT_VERSION), graft::core::report::versionsText(graft::core::report::versions())));
    return kOk;
  }
  for (const auto& c : commands)
    if (c.name == name) {
      setCommandJob(jobOf(name));
      if (const QString bad = startWatchdog(name, args); !bad.isEmpty()) return fail(bad);
      // The last boundary: whatever a job let through is a message and exit 2, never an abort.
      const int code = graft::core::model::guarded([&] { return c.run(args); }, [&](const QString& why) {
        return fail(QStringLiteral("%1 failed: %2").arg(name, why));
      });
      // With --json, a command that stopped before its answer still says why on stdout.
      if (args.contains(QLatin1String("--json")) && !jsonPrinted() && !reported().empty()) printJson({});
      return code;
    }
  return fail(QStringLiteral("unknown command \"%1\" (see graft-cli --help)").arg(name));
}
