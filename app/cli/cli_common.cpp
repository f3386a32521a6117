#include "app/cli/cli_common.h"

#include "core/run/threads.h"

#include <QtCore/QJsonDocument>
#include <cstdio>

namespace graft::cli {

void addModelOptions(QCommandLineParser& parser) {
  parser.addOption({QStringLiteral("json"), QStringLiteral("Machine-readable JSON on stdout.")});
  parser.addOption({QStringLiteral("sample"), QStringLiteral("Use built-in sample NAME (cnn, mlp, transformer) as the model."),
                    QStringLiteral("NAME")});
  parser.addOption({QStringLiteral("no-freeze"), QStringLiteral("Keep parameters as attributes (do not freeze).")});
  parser.addOption({QStringLiteral("threads"),
                    QStringLiteral("Intra-op threads for runs (default: the machine's physical cores, %1).")
                        .arg(core::run::physicalCores()),
                    QStringLiteral("N")});
}

bool parseOrExit(QCommandLineParser& parser, const Command& command, const QStringList& arguments) {
  parser.setApplicationDescription(command.summary);
  const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help."));
  parser.addOption(help);
  QStringList argv = arguments;
  argv.prepend(QStringLiteral("graft-cli ") + command.name);
  if (!parser.parse(argv)) {
    fail(parser.errorText() + QStringLiteral(" (see graft-cli %1 --help)").arg(command.name));
    return false;
  }
  if (parser.isSet(help)) {
    printText(QStringLiteral("Usage: graft-cli %1 %2\n\n").arg(command.name, command.usage) +
              parser.helpText().section(QLatin1Char('\n'), 2));
    std::exit(kOk);
  }
  return true;
}

std::unique_ptr<core::model::Document> openModel(const QCommandLineParser& parser, int index) {
  if (parser.isSet(QStringLiteral("threads"))) {
    bool ok = false;
    const int threads = parser.value(QStringLiteral("threads")).toInt(&ok);
    if (!ok || threads < 1) {
      fail(QStringLiteral("--threads takes a positive whole number, not \"%1\"").arg(parser.value(QStringLiteral("threads"))));
      return nullptr;
    }
    core::run::useThreads(threads);
  }
  core::io::LoadOptions options;
  options.freeze = !parser.isSet(QStringLiteral("no-freeze"));
  core::io::LoadResult result;
  if (parser.isSet(QStringLiteral("sample")) && index == 0) {
    result = core::io::loadSample(parser.value(QStringLiteral("sample")), options);
  } else {
    const int fileIndex = parser.isSet(QStringLiteral("sample")) ? index - 1 : index;
    const QStringList files = parser.positionalArguments();
    if (fileIndex < 0 || fileIndex >= files.size()) {
      fail(QStringLiteral("missing MODEL: give a .pt file or --sample NAME"));
      return nullptr;
    }
    result = core::io::loadFile(files[fileIndex], options);
  }
  if (!result.ok()) {
    fail(result.error.headline + QLatin1Char(' ') + QString(result.error.hint).replace(QLatin1Char('\n'), QLatin1Char(' ')).simplified());
    if (!result.error.details.isEmpty())
      std::fprintf(stderr, "details: %s\n", qPrintable(result.error.details.section(QLatin1Char('\n'), 0, 2)));
    return nullptr;
  }
  return std::move(result.document);
}

std::optional<core::run::InputSet> inputsOrFail(const QCommandLineParser& parser, const core::model::Document& doc,
                                                quint64 seed) {
  auto result = core::run::inputsFor(doc, parser.values(QStringLiteral("input")), seed);
  if (result.inputs) return std::move(result.inputs);
  if (result.missingShape >= 0)
    result.error += QStringLiteral(": pass one --input SPEC per forward argument, e.g. --input 1x3x224x224:float32 --input 3");
  fail(result.error);
  return std::nullopt;
}

int fail(const QString& message) {
  std::fprintf(stderr, "graft-cli: %s\n", qPrintable(message));
  return kUsageOrInput;
}

void printJson(const QJsonObject& object) {
  std::fputs(QJsonDocument(object).toJson(QJsonDocument::Indented).constData(), stdout);
}

void printText(const QString& text) {
  std::fputs(text.toUtf8().constData(), stdout);
  if (!text.endsWith(QLatin1Char('\n'))) std::fputc('\n', stdout);
}

}  // namespace graft::cli
