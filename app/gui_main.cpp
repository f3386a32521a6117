// graft: the desktop application.
#include "ui/edit_actions.h"
#include "ui/guarded_application.h"
#include "ui/main_window.h"
#include "ui/run_settings.h"

#include <QtCore/QCommandLineParser>
#include <QtWidgets/QApplication>

int main(int argc, char** argv) {
  graft::ui::GuardedApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Graft"));
  QApplication::setApplicationName(QStringLiteral("graft"));
  QApplication::setApplicationDisplayName(QStringLiteral("Graft"));
  QApplication::setApplicationVersion(QStringLiteral(GRAFT_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("See, rewrite and verify PyTorch model graphs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A TorchScript .pt file to open."));
  const QCommandLineOption sample(QStringLiteral("sample"), QStringLiteral("Open built-in sample NAME (cnn, mlp, transformer)."),
                                  QStringLiteral("NAME"));
  const QCommandLineOption noFreeze(QStringLiteral("no-freeze"), QStringLiteral("Keep parameters as attributes (do not freeze)."));
  const QCommandLineOption scriptEdits(QStringLiteral("script-edits"),
                                       QStringLiteral("Test hook: after opening MODEL, apply the edits of FILE (a JSON array of "
                                                      "journal-form edits) one by one, printing progress on stdout."),
                                       QStringLiteral("FILE"));
  const QCommandLineOption noRecovery(QStringLiteral("no-recovery"), QStringLiteral("Do not offer to recover an unclosed session."));
  parser.addOption(sample);
  parser.addOption(noFreeze);
  parser.addOption(scriptEdits);
  parser.addOption(noRecovery);
  parser.process(app);
  graft::ui::applySavedThreads();

  graft::ui::MainWindow window;
  window.show();
  const bool freeze = !parser.isSet(noFreeze);
  // A journal left open by a crash: offer to recover it before anything else is opened.
  if (!parser.isSet(noRecovery) && !parser.isSet(scriptEdits) && window.editActions()->offerRecovery()) return app.exec();
  if (parser.isSet(sample)) window.openSample(parser.value(sample), freeze);
  else if (!parser.positionalArguments().isEmpty()) window.openFile(parser.positionalArguments().front(), freeze);
  if (parser.isSet(scriptEdits) && window.document()) window.runScript(parser.value(scriptEdits));
  return app.exec();
}
