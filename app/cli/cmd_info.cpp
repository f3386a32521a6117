#include "app/cli/commands.h"
#include "core/report/info_report.h"

namespace graft::cli {

Command infoCommand() {
  Command c{QStringLiteral("info"), QStringLiteral("Summarise a model: op counts, modules, inputs and outputs."),
            QStringLiteral("MODEL [--json] [--no-freeze]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A TorchScript .pt file."));
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    auto doc = openModel(parser);
    if (!doc) return int(kUsageOrInput);
    if (parser.isSet(QStringLiteral("json"))) printJson(core::report::infoReport(*doc));
    else printText(core::report::infoText(*doc));
    return int(kOk);
  };
  return c;
}

Command irCommand() {
  Command c{QStringLiteral("ir"), QStringLiteral("Print the frozen, inlined TorchScript IR of a model."),
            QStringLiteral("MODEL [--json] [--no-freeze]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A TorchScript .pt file."));
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    auto doc = openModel(parser);
    if (!doc) return int(kUsageOrInput);
    const QString ir = doc->current()->irText();
    if (parser.isSet(QStringLiteral("json"))) printJson(QJsonObject{{"model", doc->displayName()}, {"ir", ir}});
    else printText(ir);
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
