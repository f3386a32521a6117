#include "app/cli/commands.h"
#include "app/cli/remote_progress.h"
#include "app/cli/side_options.h"
#include "core/remote/remote_compare.h"
#include "core/report/compare_report.h"
#include "core/run/compare.h"
#include "core/run/executor.h"
#include "core/run/precision_relax.h"

namespace graft::cli {

namespace {
// The runs' own notes as info lines: a device remapped ("program exported for cpu, run on
// cuda:0", device_remap.h) and what a lower-precision side relaxed (precision_relax.h); for
// --json, `device_notes` and `relaxed_a`/`relaxed_b` (each line once).
QJsonObject reportRunNotes(const core::run::CompareResult& result) {
  QJsonObject out;
  QStringList deviceNotes;
  for (const auto& [run, side] :
       {std::pair{result.runA, QStringLiteral("A")}, std::pair{result.runB, QStringLiteral("B")}}) {
    if (!run) continue;
    if (!run->deviceNote.isEmpty()) {
      deviceNotes << QStringLiteral("%1: %2").arg(side, run->deviceNote);
      report(core::model::Diagnostic::info(QStringLiteral("compare"), deviceNotes.back()));
    }
    if (run->relaxed.isEmpty()) continue;
    report(core::model::Diagnostic::info(QStringLiteral("compare"),
                                         core::run::relaxedSummary(QStringLiteral("side ") + side, run->relaxed)));
    QStringList lines = run->relaxed;
    lines.removeDuplicates();
    out.insert(QStringLiteral("relaxed_") + side.toLower(), QJsonArray::fromStringList(lines));
  }
  if (!deviceNotes.isEmpty()) out.insert(QStringLiteral("device_notes"), QJsonArray::fromStringList(deviceNotes));
  return out;
}
}  // namespace

Command compareCommand() {
  Command c{
      QStringLiteral("compare"),
      QStringLiteral(
          "Run two models (or one model at two precisions or on two devices) on the same inputs and compare outputs "
          "and intermediates. Verdicts: EXACT (bit-identical); EQUAL within rounding (A is also run at float64 on the "
          "CPU, and B's error against it is within what the arithmetic in play explains: A's own error per unit "
          "roundoff, times B's unit roundoff (float32, TF32 convolutions on CUDA, float16, bfloat16), times 10); "
          "DIFFERENT beyond that. Finite against inf or NaN always differs; NaN against NaN at the same place is "
          "equal; integer values (indices) are compared for equality. Each verdict says why in one line. "
          "--atol/--rtol judge elementwise instead (torch.allclose). Exit 0 equal, 1 different, 3 outputs equal "
          "but an intermediate differs, 2 usage or input error."),
      QStringLiteral(
          "A B | --sample NAME [B] [--input SPEC ...] [--seed N] [--atol X] [--rtol Y] [--device D] [--device-b D] "
          "[--dtype-a T] [--dtype-b T] [--autocast] [--tf32 default|on|off|emulate] [--per-node] [--json]"),
      {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("A"), QStringLiteral("A .pt or .pt2 file (or --sample NAME)."));
    parser.addPositionalArgument(QStringLiteral("B"),
                                 QStringLiteral("The .pt or .pt2 file to compare with (default: A again)."));
    addSideOptions(parser);
    parser.addOption({QStringLiteral("per-node"), QStringLiteral("Compare every op node's outputs and list them.")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);

    const bool sample = parser.isSet(QStringLiteral("sample"));
    const int files = parser.positionalArguments().size();
    if ((sample && files > 1) || (!sample && (files < 1 || files > 2)))
      return fail(
          QStringLiteral("compare needs a file A and optionally B (default: A again), or --sample NAME [B] (see "
                         "graft-cli compare --help)"));
    auto docA = openModel(parser, 0);
    if (!docA) return int(kUsageOrInput);
    auto docB = openModel(parser, (sample && files == 0) || (!sample && files == 1) ? 0 : 1);
    if (!docB) return int(kUsageOrInput);

    core::run::CompareOptions options;
    core::run::pairDocuments(*docA, *docA->current(), *docB, *docB->current(), options);
    options.perNode = parser.isSet(QStringLiteral("per-node"));
    quint64 seed = 0;
    std::optional<core::remote::RemoteDevice> remoteB;
    if (!readSideOptions(parser, options, seed, &remoteB)) return int(kUsageOrInput);
    if (remoteB)
      if (const QString why = core::remote::remoteCompareRefusal(options, docB->format() == QLatin1String("pt2"));
          !why.isEmpty())
        return fail(why);

    const auto inputs = inputsOrFail(parser, *docA, seed);
    if (!inputs) return int(kUsageOrInput);

    // B on another machine (core/remote): progress and traffic on stderr, the host named in the result.
    std::optional<core::remote::RemoteTraffic> traffic;
    core::run::CompareResult result;
    if (remoteB) {
      const int threads = hostThreads(parser);
      auto remote = core::remote::compareWithRemoteB(docA->current(), *docB, docB->current(), *inputs, options,
                                                     *remoteB, threads, printProgress);
      result = std::move(remote.compare);
      traffic = remote.traffic;
      printProgress(traffic->summary());
    } else {
      result = core::run::compareRevisions(docA->current(), docB->current(), *inputs, options);
    }
    const QJsonObject runNotes = reportRunNotes(result);
    if (!result.ok) return fail(result.diagnostics());
    report(result.diagnostics());  // differing outputs: a warning naming the first divergence
    if (parser.isSet(QStringLiteral("json"))) {
      QJsonObject j = core::report::compareReport(result, options.tol, options.perNode, docB->outputNames());
      j["a"] = docA->displayName();
      j["b"] = docB->displayName();
      for (auto it = runNotes.begin(); it != runNotes.end(); ++it) j[it.key()] = it.value();
      j["tf32"] = core::run::tf32Name(options.tf32);
      // Which question each side at another dtype answers (run/dtype_follow.h).
      for (const auto& [key, precision] :
           {std::pair{"question_a", &options.precisionA}, std::pair{"question_b", &options.precisionB}})
        if (!precision->question().isEmpty()) j[QLatin1String(key)] = precision->question();
      if (traffic) {
        j["device_b"] = traffic->deviceLabel;
        j["remote"] = traffic->toJson();
      }
      printJson(j);
    } else {
      printText(core::report::compareText(result, options.tol, docB->outputNames()));
      if (traffic) printText(QStringLiteral("B ran on %1").arg(traffic->deviceLabel));
      if (!options.precisionB.question().isEmpty())
        printText(QStringLiteral("B at %1 is %2%3")
                      .arg(options.precisionB.describe(), options.precisionB.question(),
                           options.precisionB.casts == core::run::Casts::Follow
                               ? QStringLiteral(" (--casts as-written: this program's own ops)")
                               : QString()));
      if (options.tf32 != core::run::Tf32::Default)
        printText(QStringLiteral("tf32: %1").arg(core::run::tf32Name(options.tf32)));
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
