// graft: the desktop application.
#include "ui/main_window.h"

#include <QtCore/QCommandLineParser>
#include <QtWidgets/QApplication>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
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
  parser.addOption(sample);
  parser.addOption(noFreeze);
  parser.process(app);

  graft::ui::MainWindow window;
  window.show();
  const bool freeze = !parser.isSet(noFreeze);
  if (parser.isSet(sample)) window.openSample(parser.value(sample), freeze);
  else if (!parser.positionalArguments().isEmpty()) window.openFile(parser.positionalArguments().front(), freeze);
  return app.exec();
}
