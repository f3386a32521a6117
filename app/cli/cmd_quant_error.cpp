#include "app/cli/commands.h"
#include "core/report/quant_error_report.h"
#include "core/run/module_error.h"

namespace graft::cli {

Command quantErrorCommand() {
  Command c{QStringLiteral("quant-error"),
            QStringLiteral("Run a quantized model and its float twin on the same inputs and measure each module's "
                           "quantization error (SQNR against the float model, cosine), paired by module path."),
            QStringLiteral("QUANTIZED FLOAT [--input SPEC ...] [--seed N] [--device D] [--json]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("QUANTIZED"), QStringLiteral("The quantized model (.pt or .pt2)."));
    parser.addPositionalArgument(QStringLiteral("FLOAT"), QStringLiteral("Its float twin: the same module paths."));
    addInputOption(parser);
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed for random inputs (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("device"), QStringLiteral("Device for both models: cpu, cuda, cuda:N."),
                      QStringLiteral("D"), QStringLiteral("cpu")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    if (parser.isSet(QStringLiteral("sample")) || parser.positionalArguments().size() != 2)
      return fail(QStringLiteral("quant-error needs two files: QUANTIZED FLOAT (see graft-cli quant-error --help)"));
    bool seedOk = false;
    const quint64 seed = parser.value(QStringLiteral("seed")).toULongLong(&seedOk);
    if (!seedOk) return fail(QStringLiteral("--seed needs a non-negative integer"));
    QString why;
    const auto device = core::run::Executor::parseDevice(parser.value(QStringLiteral("device")), &why);
    if (!device) return fail(why);

    auto quantized = openModel(parser, 0);
    if (!quantized) return int(kUsageOrInput);
    auto twin = openModel(parser, 1);
    if (!twin) return int(kUsageOrInput);
    const auto inputs = inputsOrFail(parser, *quantized, seed);
    if (!inputs) return int(kUsageOrInput);
    setCommandJob(QStringLiteral("compare"));  // both models loaded: what fails now is the comparison

    const auto result = core::run::moduleErrors(quantized->current(), twin->current(), *inputs, *device);
    if (!result.ok) return fail(result.error);
    if (result.modules.empty())
      report(core::model::Diagnostic::warning(commandJob(),
                                              QStringLiteral("no module path is shared by the two models"),
                                              QStringLiteral("is FLOAT the twin of QUANTIZED?")));
    if (parser.isSet(QStringLiteral("json"))) {
      QJsonObject j = core::report::quantErrorReport(result);
      j["quantized"] = quantized->displayName();
      j["float"] = twin->displayName();
      printJson(j);
    } else {
      printText(core::report::quantErrorText(result));
    }
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
