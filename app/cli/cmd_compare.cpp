#include "app/cli/commands.h"
#include "app/cli/side_options.h"
#include "core/report/compare_report.h"
#include "core/run/compare.h"

namespace graft::cli {

Command compareCommand() {
  Command c{QStringLiteral("compare"),
            QStringLiteral("Run two models (or one model at two precisions) on the same inputs and compare outputs and intermediates "
                           "(default atol 1e-5, rtol 1e-4; with --dtype-b float16: rtol 1e-3, bfloat16: 1.6e-2)."),
            QStringLiteral("A B | --sample NAME [B] [--input SPEC ...] [--seed N] [--atol X] [--rtol Y] [--device D] [--device-b D] "
                           "[--dtype-a T] [--dtype-b T] [--autocast] [--per-node] [--json]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("A"), QStringLiteral("A TorchScript .pt file (or --sample NAME)."));
    parser.addPositionalArgument(QStringLiteral("B"), QStringLiteral("The .pt file to compare with (default: A again)."));
    addSideOptions(parser);
    parser.addOption({QStringLiteral("per-node"), QStringLiteral("Compare every op node's outputs and list them.")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);

    const bool sample = parser.isSet(QStringLiteral("sample"));
    const int files = parser.positionalArguments().size();
    if ((sample && files > 1) || (!sample && (files < 1 || files > 2)))
      return fail(QStringLiteral("compare needs a file A and optionally B (default: A again), or --sample NAME [B] (see graft-cli compare --help)"));
    auto docA = openModel(parser, 0);
    if (!docA) return int(kUsageOrInput);
    auto docB = openModel(parser, (sample && files == 0) || (!sample && files == 1) ? 0 : 1);
    if (!docB) return int(kUsageOrInput);

    core::run::CompareOptions options;
    core::run::pairDocuments(*docA, *docA->current(), *docB, *docB->current(), options);
    options.perNode = parser.isSet(QStringLiteral("per-node"));
    quint64 seed = 0;
    if (!readSideOptions(parser, options, seed)) return int(kUsageOrInput);

    const auto inputs = inputsOrFail(parser, *docA, seed);
    if (!inputs) return int(kUsageOrInput);

    const auto result = core::run::compareRevisions(docA->current(), docB->current(), *inputs, options);
    if (!result.ok) return fail(result.diagnostics());
    report(result.diagnostics());  // differing outputs: a warning naming the first divergence
    if (parser.isSet(QStringLiteral("json"))) {
      QJsonObject j = core::report::compareReport(result, options.tol, options.perNode, docB->outputNames());
      j["a"] = docA->displayName();
      j["b"] = docB->displayName();
      printJson(j);
    } else {
      printText(core::report::compareText(result, options.tol, docB->outputNames()));
    }
    switch (result.verdict()) {
      case core::run::CompareResult::Verdict::Equal: return int(kOk);
      case core::run::CompareResult::Verdict::OutputsEqualIntermediateDiffers: return int(kIntermediateDiffers);
      case core::run::CompareResult::Verdict::OutputsDiffer: break;
    }
    return int(kAnswerNo);
  };
  return c;
}

}  // namespace graft::cli
