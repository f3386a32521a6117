#include "app/cli/commands.h"
#include "app/cli/remote_progress.h"
#include "core/remote/remote_compare.h"
#include "core/document/document_service.h"
#include "app/cli/side_options.h"
#include "core/edit/session.h"
#include "core/io/save.h"
#include "core/report/compare_report.h"
#include "core/jobs/float32_search.h"

#include <QtCore/QJsonArray>

namespace graft::cli {

using core::run::dtypeName;

namespace {
// What the saved file is, and how stock PyTorch runs it.
QString savedLine(const QString& out, const core::rewrite::MixedPrecision& stored) {
  const auto& programDtype = stored.programDtype;
  if (stored.keptAt == c10::kDouble)
    return QStringLiteral("saved %1: the float32 program with those nodes in float64, which torch.autocast leaves "
                          "alone; run it under autocast as before")
        .arg(out);
  if (!programDtype)
    return QStringLiteral("saved %1: the program as it was (its weights are module attributes) with casts around "
                          "those nodes; run it after .half()")
        .arg(out);
  return QStringLiteral(
             "saved %1: a %2 program (weights at %2, floating inputs cast to it) with those nodes in float32; "
             "stock PyTorch runs it as it is, or after .%3()")
      .arg(out, dtypeName(*programDtype), core::run::moduleMethod(*programDtype));
}
}  // namespace

Command precisionCommand() {
  Command c{QStringLiteral("precision"),
            QStringLiteral(
                "Find a small set of nodes to keep in float32 so that a float16 or bfloat16 run passes; save the model "
                "at that dtype with those nodes in float32 (stock PyTorch runs it as it is or after .half())."),
            QStringLiteral("MODEL | --sample NAME  --dtype-b float16|bfloat16 [--device-b cuda|ssh://HOST/DEVICE] "
                           "[--input SPEC ...] [--atol X] [--rtol Y] [-o OUT] [--json]"),
            {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("The model (.pt or .pt2, or --sample NAME)."));
    addSideOptions(parser);
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("Save the model with the nodes kept in float32 (.pt, or .pt2 for a program)."),
                      QStringLiteral("OUT")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    const bool sample = parser.isSet(QStringLiteral("sample"));
    const QStringList files = parser.positionalArguments();
    if (sample == !files.isEmpty() || files.size() > 1)
      return fail(QStringLiteral("precision needs one model: a file or --sample NAME"));
    const QString out = parser.value(QStringLiteral("output"));
    if (!out.isEmpty() && !outputAllowed(parser, out)) return int(kUsageOrInput);

    core::run::CompareOptions options;
    quint64 seed = 0;
    std::optional<core::remote::RemoteDevice> remoteB;
    if (!readSideOptions(parser, options, seed, &remoteB)) return int(kUsageOrInput);
    if (remoteB)
      if (const QString why = core::remote::remoteCompareRefusal(options, false); !why.isEmpty())
        return fail(why);
    // The document service owns the model and is the one gate for its changes (core/document).
    core::document::DocumentService service;
    service.open(openModel(parser, 0));
    const core::model::Document* doc = service.document();
    if (!doc) return int(kUsageOrInput);
    const auto inputs = inputsOrFail(parser, *doc, seed);
    if (!inputs) return int(kUsageOrInput);

    const auto rev = doc->current();
    // On a host (core/remote): each check's lower-precision side runs there, as it will be saved.
    core::remote::RemoteTraffic traffic;
    core::jobs::CheckOnB onHost;
    if (remoteB) {
      const int threads = hostThreads(parser);
      onHost = [&](const core::model::RevisionPtr& b) {
        auto outputsOnly = options;
        outputsOnly.perNode = false;
        auto remote = core::remote::compareWithRemoteB(rev, *doc, b, *inputs, outputsOnly, *remoteB, threads,
                                                       printProgress);
        traffic.host = remote.traffic.host;
        traffic.deviceLabel = remote.traffic.deviceLabel;
        traffic.bytesSent += remote.traffic.bytesSent;
        traffic.bytesReceived += remote.traffic.bytesReceived;
        traffic.roundTrips += remote.traffic.roundTrips;
        traffic.seconds += remote.traffic.seconds;
        return std::move(remote.compare);
      };
    }
    const auto found = core::jobs::findFloat32Nodes(rev, *inputs, options, service.ids(), onHost);
    if (remoteB) printProgress(traffic.summary());
    if (!found.ok && found.noKeepSet) {  // an answer, "no": not a usage error
      report({core::model::Diagnostic::warning(QStringLiteral("precision"), found.error)});
      if (parser.isSet(QStringLiteral("json")))
        printJson({{"model", doc->displayName()},
                   {"dtype", options.precisionB.describe()},
                   {"keep_set", QJsonValue()},
                   {"reason", found.error},
                   {"runs", found.runs},
                   {"before", core::report::tensorDiffJson(found.before)}});
      return int(kAnswerNo);
    }
    if (!found.ok) return fail(found.error);
    if (found.revision && !out.isEmpty()) {
      // The saved revision is committed the one way every change is (edit/session.h), so its
      // provenance and record are a revision's like any other.
      QString error;
      const auto kept =
          service.keepInFloat32({found.nodes.begin(), found.nodes.end()}, found.floating, &error, found.stored);
      if (!kept) return fail(error);
      const auto saved = core::io::saveAs(*doc, kept, out, &*inputs);  // checked on the inputs it was found on
      if (!saved.ok) return fail(saved.diagnostics(out));
      report(saved.diagnostics(out));
    }
    QJsonArray nodes;
    QStringList lines;
    for (auto id : found.nodes) {
      nodes.append(QJsonObject{{"node", double(id)}, {"op", rev->kindOf(id)}, {"module_path", rev->modulePathOf(id)}});
      lines << QStringLiteral("  %1 (node %2%3)").arg(rev->kindOf(id)).arg(id)
                   .arg(rev->modulePathOf(id).isEmpty() ? QString() : QStringLiteral(", ") + rev->modulePathOf(id));
    }
    if (parser.isSet(QStringLiteral("json"))) {
      printJson({{"model", doc->displayName()},
                 {"dtype", options.precisionB.describe()},
                 {"device_b", remoteB ? QJsonValue(traffic.deviceLabel) : QJsonValue(options.deviceB.str().c_str())},
                 {"atol", options.tol.atol},
                 {"rtol", options.tol.rtol},
                 {"passes_already", found.passesAlready},
                 {"nodes", nodes},
                 {"runs", found.runs},
                 {"ranked", found.ranked},
                 {"before", core::report::tensorDiffJson(found.before)},
                 {"after", found.revision ? QJsonValue(core::report::tensorDiffJson(found.after)) : QJsonValue()},
                 {"output", found.revision && !out.isEmpty() ? QJsonValue(out) : QJsonValue()},
                 {"saved_dtype",
                  found.stored.programDtype ? QJsonValue(dtypeName(*found.stored.programDtype)) : QJsonValue()},
                 {"kept_at", dtypeName(found.stored.keptAt)}});
    } else if (found.passesAlready) {
      printText(QStringLiteral("the outputs at %1 are within tolerance already (max_abs %2): nothing needs float32")
                    .arg(options.precisionB.describe()).arg(found.before.maxAbs, 0, 'g', 4));
    } else {
      lines.prepend(QStringLiteral("keep %1 node(s) in %7 and the outputs at %2 pass (max_abs %3, was %4; %5 runs "
                                   "over %6 ranked nodes):")
                        .arg(found.nodes.size())
                        .arg(options.precisionB.describe())
                        .arg(found.after.maxAbs, 0, 'g', 4)
                        .arg(found.before.maxAbs, 0, 'g', 4)
                        .arg(found.runs)
                        .arg(found.ranked)
                        .arg(dtypeName(found.stored.keptAt)));
      if (!out.isEmpty()) lines << savedLine(out, found.stored);
      printText(lines.join(QLatin1Char('\n')));
    }
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
