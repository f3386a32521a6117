// graft: the desktop application.
#include "ui/edit_actions.h"
#include "ui/guarded_application.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"
#include "ui/run_settings.h"
#include "ui/tour/tour_autoplay.h"

#include <cstdio>

#include <QtCore/QCommandLineParser>
#include <QtCore/QTimer>
#include <QtWidgets/QStatusBar>
#include <QtWidgets/QApplication>

#include <cstdio>
#include <cstring>

namespace {
// Without a display (no DISPLAY or WAYLAND_DISPLAY, no platform chosen) Qt would abort: headless
// runs (a tour's autoplay, scripted edits) use the offscreen platform instead.
void offscreenWithoutDisplay(int argc, char** argv) {
  if (qEnvironmentVariableIsSet("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY") ||
      !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
    return;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "-platform") == 0) return;
  qputenv("QT_QPA_PLATFORM", "offscreen");
  std::fprintf(stderr, "graft: no display; running offscreen\n");
}
}  // namespace

int main(int argc, char** argv) {
  offscreenWithoutDisplay(argc, argv);
  graft::ui::GuardedApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Graft"));
  QApplication::setApplicationName(QStringLiteral("graft"));
  QApplication::setApplicationDisplayName(QStringLiteral("Graft"));
  QApplication::setApplicationVersion(QStringLiteral(GRAFT_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("See, rewrite and verify PyTorch model graphs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("MODEL"),
      QStringLiteral("A model to open: a torch.export program (.pt2) or a TorchScript archive (.pt)."));
  const QCommandLineOption sample(QStringLiteral("sample"),
                                  QStringLiteral("Open built-in sample NAME (cnn, mlp, transformer)."),
                                  QStringLiteral("NAME"));
  const QCommandLineOption noFreeze(QStringLiteral("no-freeze"),
                                    QStringLiteral("Keep parameters as attributes (do not freeze)."));
  const QCommandLineOption scriptEdits(
      QStringLiteral("script-edits"),
      QStringLiteral("Test hook: after opening MODEL, apply the edits of FILE (a JSON array of "
                     "journal-form edits) one by one, printing progress on stdout."),
      QStringLiteral("FILE"));
  const QCommandLineOption noRecovery(QStringLiteral("no-recovery"),
                                      QStringLiteral("Do not offer to recover an unclosed session."));
  const QCommandLineOption tour(QStringLiteral("tour"),
                                QStringLiteral("Start guided tour ID (built-in) or FILE (a tour file)."),
                                QStringLiteral("ID|FILE"));
  const QCommandLineOption autoplay(
      QStringLiteral("autoplay"),
      QStringLiteral("With --tour: run every step with \"Do it for me\" and quit; exit 0 when every "
                     "step's condition was met, 1 naming the step that was not."));
  const QCommandLineOption screenshots(
      QStringLiteral("screenshot-dir"),
      QStringLiteral("With --autoplay: write one PNG of the window per step into DIR."), QStringLiteral("DIR"));
  parser.addOption(tour);
  parser.addOption(autoplay);
  parser.addOption(screenshots);
  parser.addOption(sample);
  parser.addOption(noFreeze);
  const QCommandLineOption trust(
      QStringLiteral("trust"),
      QStringLiteral("Trust the model file: its __setstate__ may run while it opens and its runs may "
                     "reach outside the process (docs/safety.md)."));
  parser.addOption(trust);
  parser.addOption(scriptEdits);
  parser.addOption(noRecovery);
  parser.process(app);
  graft::ui::applySavedThreads();

  if (parser.isSet(autoplay) && !parser.isSet(tour)) {
    std::fprintf(stderr, "graft: --autoplay needs --tour ID\n");
    return 2;
  }
  graft::ui::MainWindow window;
  window.show();
  // The size course material is made at, whatever the screen: after show(), which fits the
  // window to the screen (a headless screen is 800x600).
  if (parser.isSet(autoplay)) window.resize(1366, 768);
  const bool freeze = !parser.isSet(noFreeze);
  if (parser.isSet(tour)) {
    if (!window.startTour(parser.value(tour))) {
      if (parser.isSet(autoplay)) {
        std::fprintf(stderr, "graft: %s\n", qPrintable(window.statusBar()->currentMessage()));
        return 2;
      }
    } else if (parser.isSet(autoplay)) {
      auto* player = new graft::ui::TourAutoplay(window.parts(), parser.value(screenshots), &window);
      QObject::connect(player, &graft::ui::TourAutoplay::progress, [](const QString& line) {
        std::printf("%s\n", qPrintable(line));
        std::fflush(stdout);
      });
      QObject::connect(player, &graft::ui::TourAutoplay::finished, &app, [player](int code) {
        std::fprintf(code == 0 ? stdout : stderr, "%s\n", qPrintable(player->message()));
        QCoreApplication::exit(code);
      });
      QTimer::singleShot(0, player, &graft::ui::TourAutoplay::start);
      return app.exec();
    }
  }
  // A journal left open by a crash: offer to recover it before anything else is opened.
  if (!parser.isSet(noRecovery) && !parser.isSet(scriptEdits) && window.controller()->offerRecovery())
    return app.exec();
  if (parser.isSet(sample)) window.openSample(parser.value(sample), freeze);
  else if (!parser.positionalArguments().isEmpty())
    window.openFile(parser.positionalArguments().front(), freeze, parser.isSet(trust));
  if (parser.isSet(scriptEdits) && window.controller()->document()) window.runScript(parser.value(scriptEdits));
  return app.exec();
}
