#include "app/cli/commands.h"
#include "app/cli/remote_progress.h"
#include "core/remote/remote_reduce.h"
#include "app/cli/side_options.h"
#include "core/io/pt2_export.h"
#include "core/report/compare_report.h"
#include "core/run/reduce.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>

namespace graft::cli {

namespace {

QByteArray sha256Of(const QString& path) {
  QFile f(path);
  QCryptographicHash hash(QCryptographicHash::Sha256);
  return f.open(QIODevice::ReadOnly) && hash.addData(&f) ? hash.result() : QByteArray();
}

QString where(const core::model::Revision& rev, core::model::NodeId id) {
  const QString path = rev.modulePathOf(id);
  return QStringLiteral("%1 (node %2%3)")
      .arg(rev.kindOf(id))
      .arg(id)
      .arg(path.isEmpty() ? QString() : QStringLiteral(", ") + path);
}

}  // namespace

Command reduceCommand() {
  Command c{QStringLiteral("reduce"),
            QStringLiteral(
                "Cut a failing precision or device comparison down to the smallest subgraph that still fails on the "
                "reference values at its boundary, and save it as a standalone .pt2."),
            QStringLiteral("A [A] | --sample NAME  --dtype-b T | --device-b D|ssh://HOST/DEVICE  [--input SPEC ...] "
                           "[--atol X] [--rtol Y] -o REPRO.pt2 [--json]"),
            {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("A"), QStringLiteral("The model (.pt or .pt2, or --sample NAME)."));
    parser.addPositionalArgument(
        QStringLiteral("B"),
        QStringLiteral("The same model again (optional): reduce compares one model at two precisions or devices."));
    addSideOptions(parser);
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("Where to write the failing subgraph (.pt2)."),
                      QStringLiteral("REPRO.pt2")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);

    const bool sample = parser.isSet(QStringLiteral("sample"));
    const QStringList files = parser.positionalArguments();
    if ((sample && !files.isEmpty()) || (!sample && (files.isEmpty() || files.size() > 2)))
      return fail(QStringLiteral("reduce needs one model: a file A (optionally A again as B) or --sample NAME"));
    if (files.size() == 2 && !samePath(files[0], files[1]) && sha256Of(files[0]) != sha256Of(files[1]))
      return fail(
          QStringLiteral(
              "reduce compares one model with itself at another precision or on another device; %1 and %2 differ")
              .arg(files[0], files[1]),
          QStringLiteral("compare two different models with graft-cli compare"));
    const QString out = parser.value(QStringLiteral("output"));
    if (out.isEmpty() || !out.endsWith(QLatin1String(".pt2"), Qt::CaseInsensitive))
      return fail(QStringLiteral("reduce writes its subgraph as a torch.export program: give -o REPRO.pt2"));
    if (!outputAllowed(parser, out)) return int(kUsageOrInput);

    core::run::CompareOptions options;
    quint64 seed = 0;
    std::optional<core::remote::RemoteDevice> remoteB;
    if (!readSideOptions(parser, options, seed, &remoteB)) return int(kUsageOrInput);
    if (!core::run::comparesPrecision(options))
      return fail(
          QStringLiteral("both sides run the same way: give --dtype-b (float16, bfloat16, …) or --device-b so that one "
                         "side can fail"));
    auto doc = openModel(parser, 0);
    if (!doc) return int(kUsageOrInput);
    const auto inputs = inputsOrFail(parser, *doc, seed);
    if (!inputs) return int(kUsageOrInput);

    const auto rev = doc->current();
    // B on a host (core/remote): its runs go there, over one connection; progress on stderr.
    core::remote::RemoteTraffic traffic;
    if (remoteB)
      if (const QString why = core::remote::remoteReduceRefusal(options, *doc); !why.isEmpty()) return fail(why);
    const int threads = hostThreads(parser);
    const auto reduced =
        remoteB ? core::remote::reduceOnHost(*doc, rev, *inputs, options, doc->ids(), *remoteB, threads, printProgress,
                                             traffic)
                : core::run::reduceFailure(rev, *inputs, options, doc->ids());
    if (remoteB) printProgress(traffic.summary());
    if (!reduced.ok) {
      const bool passes = reduced.nothingFails;
      report(passes ? core::model::Diagnostic::warning(commandJob(), reduced.error)
                    : core::model::Diagnostic::error(commandJob(), reduced.error));
      if (parser.isSet(QStringLiteral("json"))) printJson({{"reduced", false}, {"runs", reduced.runs}});
      return int(passes ? kAnswerNo : kUsageOrInput);
    }
    const auto saved = core::io::savePt2Program(reduced.subgraph, out, reduced.boundary);
    if (!saved.ok) return fail(QStringLiteral("the failing subgraph could not be saved as .pt2: %1").arg(saved.error));

    QJsonArray nodes;
    for (auto id : reduced.nodes)
      nodes.append(QJsonObject{{"node", double(id)}, {"op", rev->kindOf(id)}, {"module_path", rev->modulePathOf(id)}});
    if (parser.isSet(QStringLiteral("json"))) {
      printJson({{"reduced", true},
                 {"model", doc->displayName()},
                 {"nodes", int(reduced.nodes.size())},
                 {"runs", reduced.runs},
                 {"bisection_runs", reduced.bisectionRuns},
                 {"removal_runs", reduced.removalRuns},
                 {"candidates", reduced.candidateNodes},
                 {"output", out},
                 {"b", options.precisionB.describe()},
                 {"device_b", remoteB ? QJsonValue(traffic.deviceLabel) : QJsonValue(options.deviceB.str().c_str())},
                 {"failing", QJsonObject{{"node", double(reduced.failing)}, {"op", rev->kindOf(reduced.failing)},
                                         {"module_path", rev->modulePathOf(reduced.failing)}}},
                 {"failure", core::report::tensorDiffJson(reduced.failure)},
                 {"subgraph", nodes},
                 {"boundary", QJsonArray::fromStringList(reduced.boundaryNames)}});
    } else {
      QStringList lines;
      lines << QStringLiteral(
                   "%1 node(s) still fail at %2 on the reference values at their boundary (%3 subgraph runs: %4 "
                   "bisecting %5 candidates, %6 removing):")
                   .arg(reduced.nodes.size())
                   .arg(options.precisionB.describe())
                   .arg(reduced.runs)
                   .arg(reduced.bisectionRuns)
                   .arg(reduced.candidateNodes)
                   .arg(reduced.removalRuns);
      for (auto id : reduced.nodes) lines << QStringLiteral("  ") + where(*rev, id);
      lines << QStringLiteral("fails at %1: max_abs %2")
                   .arg(where(*rev, reduced.failing))
                   .arg(reduced.failure.maxAbs, 0, 'g', 4);
      lines << QStringLiteral("inputs: %1").arg(reduced.boundaryNames.join(QStringLiteral("; ")));
      lines << QStringLiteral(
                   "saved %1 (sample inputs: the boundary values); reproduce with graft-cli compare %1 --dtype-b ...")
                   .arg(out);
      printText(lines.join(QLatin1Char('\n')));
    }
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
