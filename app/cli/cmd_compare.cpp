#include "app/cli/commands.h"
#include "core/report/compare_report.h"
#include "core/run/compare.h"

namespace graft::cli {

namespace {
bool parseNumber(const QCommandLineParser& p, const char* name, double& out) {
  if (!p.isSet(QLatin1String(name))) return true;
  bool ok = false;
  out = p.value(QLatin1String(name)).toDouble(&ok);
  if (!ok || out < 0) { fail(QStringLiteral("--%1 needs a non-negative number, got '%2'").arg(QLatin1String(name), p.value(QLatin1String(name)))); return false; }
  return true;
}
}  // namespace

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
    parser.addOption({QStringLiteral("input"), QStringLiteral("An input: DIMSxDIMS[:dtype] (random, seeded), a tensor file (.pt, .npy), (SPEC,SPEC) or [SPEC,SPEC]. Repeat per input."), QStringLiteral("SPEC")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed for random inputs (default 0)."), QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("atol"), QStringLiteral("Absolute tolerance (default 1e-5)."), QStringLiteral("X")});
    parser.addOption({QStringLiteral("rtol"), QStringLiteral("Relative tolerance (default 1e-4): |a-b| <= atol + rtol*|b|."), QStringLiteral("Y")});
    parser.addOption({QStringLiteral("device"), QStringLiteral("Device for A (and B unless --device-b): cpu, cuda, cuda:N."), QStringLiteral("D"), QStringLiteral("cpu")});
    parser.addOption({QStringLiteral("device-b"), QStringLiteral("Device for B."), QStringLiteral("D")});
    parser.addOption({QStringLiteral("dtype-a"), QStringLiteral("Run A with its floating weights and inputs cast to T (float64 for a reference)."), QStringLiteral("T")});
    parser.addOption({QStringLiteral("dtype-b"), QStringLiteral("Run B at T: float16, bfloat16, float32 or float64. Each node's own (local) error is measured too, and the node that introduces the error is named."), QStringLiteral("T")});
    parser.addOption({QStringLiteral("autocast"), QStringLiteral("With --dtype-b: keep reductions and normalisations (softmax, layer_norm, sum, …) in float32 on B, as torch.autocast does.")});
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
    for (const auto& [flag, precision] : {std::pair{"dtype-a", &options.precisionA}, std::pair{"dtype-b", &options.precisionB}}) {
      if (!parser.isSet(QLatin1String(flag))) continue;
      QString why;
      precision->dtype = core::run::precisionDtype(parser.value(QLatin1String(flag)), &why);
      if (!precision->dtype) return fail(QStringLiteral("--%1: %2").arg(QLatin1String(flag), why));
    }
    options.precisionB.autocast = parser.isSet(QStringLiteral("autocast"));
    options.tol = core::run::defaultTolerance(options);
    if (!parseNumber(parser, "atol", options.tol.atol) || !parseNumber(parser, "rtol", options.tol.rtol)) return int(kUsageOrInput);
    bool seedOk = false;
    const auto seed = parser.value(QStringLiteral("seed")).toULongLong(&seedOk);
    if (!seedOk) return fail(QStringLiteral("--seed needs a non-negative integer"));
    QString error;
    auto devA = core::run::Executor::parseDevice(parser.value(QStringLiteral("device")), &error);
    if (!devA) return fail(error);
    auto devB = parser.isSet(QStringLiteral("device-b")) ? core::run::Executor::parseDevice(parser.value(QStringLiteral("device-b")), &error) : devA;
    if (!devB) return fail(error);
    options.deviceA = *devA;
    options.deviceB = *devB;

    const auto inputs = inputsOrFail(parser, *docA, seed);
    if (!inputs) return int(kUsageOrInput);

    const auto result = core::run::compareRevisions(docA->current(), docB->current(), *inputs, options);
    if (!result.ok) return fail(result.diagnostics());
    report(result.diagnostics());  // differing outputs: a warning naming the first divergence
    if (parser.isSet(QStringLiteral("json"))) {
      QJsonObject j = core::report::compareReport(result, options.tol, options.perNode);
      j["a"] = docA->displayName();
      j["b"] = docB->displayName();
      printJson(j);
    } else {
      printText(core::report::compareText(result, options.tol));
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
