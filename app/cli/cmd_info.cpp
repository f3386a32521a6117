#include "app/cli/commands.h"
#include "core/model/document.h"
#include "core/model/fx_text.h"
#include "core/report/info_report.h"

namespace graft::cli {

Command infoCommand() {
  Command c{QStringLiteral("info"), QStringLiteral("Summarise a model: op counts, modules, inputs and outputs."),
            QStringLiteral("MODEL [--json] [--no-freeze]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A .pt or .pt2 file (or --sample NAME)."));
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
  Command c{
      QStringLiteral("ir"),
      QStringLiteral("Print a model's graph: its TorchScript IR, its fx graph as print(ep.graph) prints it, or the "
                     "Python code fx generates for it (graph_module.code)."),
      QStringLiteral("MODEL [--as torchscript|fx|code] [--json] [--no-freeze]"),
      {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addOption({QStringLiteral("as"),
                      QStringLiteral("torchscript (default for a .pt), fx (default for a .pt2) or code."),
                      QStringLiteral("FORM")});
    parser.addPositionalArgument(QStringLiteral("MODEL"),
                                 QStringLiteral("A TorchScript .pt or torch.export .pt2 file."));
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    const QString form = parser.value(QStringLiteral("as"));
    if (!form.isEmpty() && form != QLatin1String("torchscript") && form != QLatin1String("fx") &&
        form != QLatin1String("code"))
      return fail(QStringLiteral("--as %1: say torchscript, fx or code.").arg(form));
    auto doc = openModel(parser);
    if (!doc) return int(kUsageOrInput);
    const QString shown = !form.isEmpty()                         ? form
                          : doc->format() == QLatin1String("pt2") ? QStringLiteral("fx")
                                                                  : QStringLiteral("torchscript");
    QString text;
    if (shown == QLatin1String("torchscript")) {
      text = doc->current()->irText();
    } else {
      const auto fx = core::model::fxText(*doc->current());
      text = shown == QLatin1String("fx") ? fx.graph.text : fx.code.text;
    }
    if (parser.isSet(QStringLiteral("json")))
      printJson(QJsonObject{{"model", doc->displayName()}, {"as", shown}, {"ir", text}});
    else printText(text);
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
