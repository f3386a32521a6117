#include "app/cli/commands.h"
#include "app/cli/remote_progress.h"
#include "core/io/atomic_write.h"
#include "core/profile/profile_job.h"
#include "core/remote/remote_profile.h"
#include "core/report/profile_report.h"
#include "core/run/device_remap.h"
#include "core/run/executor.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

namespace graft::cli {

namespace {

QString profileText(const core::profile::Profile& p) {
  QStringList lines;
  lines << QStringLiteral("runs:      %1 (+%2 warm-up) on %3").arg(p.runMs.size()).arg(p.warmup).arg(p.device);
  lines << QStringLiteral("profiled:  median %1 ms  (p10 %2, p90 %3)")
               .arg(p.run.median, 0, 'f', 3)
               .arg(p.run.p10, 0, 'f', 3)
               .arg(p.run.p90, 0, 'f', 3);
  lines << QStringLiteral("forward:   median %1 ms  (the module's own forward, same runs)")
               .arg(p.forward.median, 0, 'f', 3);
  lines << QStringLiteral("overhead:  %1x").arg(p.run.median / std::max(1e-9, p.forward.median), 0, 'f', 3);
  if (p.memoryRecorded)
    lines << QStringLiteral("memory:    peak %1 MiB allocated (one node-by-node run)")
                 .arg(p.peakBytes / 1048576.0, 0, 'f', 2);
  if (p.kernelsRecorded)
    lines << QStringLiteral(
                 "kernels:   median %1 ms on the device per run (%2 kernels per run, %3 launched outside any node)")
                 .arg(p.kernel.median, 0, 'f', 3)
                 .arg(double(p.kernels.size()) / std::max<qsizetype>(1, p.runMs.size()), 0, 'f', 1)
                 .arg(p.unattributedKernels);
  if (!p.kernelNote.isEmpty()) lines << QStringLiteral("kernels:   %1").arg(p.kernelNote);
  lines << QStringLiteral("by op kind (median ms per run):");
  for (const auto& k : p.byOp)
    lines << QStringLiteral("  %1  %2 (%3 nodes)").arg(k.totalMs.median, 9, 'f', 3).arg(k.op).arg(k.nodes);
  return lines.join(QLatin1Char('\n'));
}

// profile --device ssh://HOST/DEVICE: the host's agent times the runs (core/remote/remote_profile).
int profileRemotely(const QCommandLineParser& parser, const core::profile::ProfileOptions& options) {
  QString error;
  const auto remote = core::remote::parseRemoteDevice(options.device, &error);
  if (!remote) return fail(error);
  if (parser.isSet(QStringLiteral("trace")) || options.recordMemory)
    return fail(QStringLiteral(
        "--trace and --memory need the profile on this machine: a remote profile returns node and forward times"));
  auto doc = openModel(parser);
  if (!doc) return int(kUsageOrInput);
  const auto inputs = inputsOrFail(parser, *doc, parser.value(QStringLiteral("seed")).toULongLong());
  if (!inputs) return int(kUsageOrInput);
  const int threads = hostThreads(parser);
  const auto result = core::remote::profileRemote(*doc, doc->current(), *inputs, options.runs, options.warmup, *remote,
                                                  threads, printProgress);
  printProgress(result.traffic.summary());
  if (!result.profile) return fail(result.error);
  const core::profile::Profile& profile = *result.profile;
  const QString perNodeNote =
      result.perNode
          ? QString()
          : QStringLiteral(
                "per-node times are not taken on a remote host for a TorchScript model: whole-forward figures only");
  if (!perNodeNote.isEmpty()) report(core::model::Diagnostic::info(QStringLiteral("profile"), perNodeNote));
  if (parser.isSet(QStringLiteral("json"))) {
    QJsonObject out = core::report::profileReport(profile);
    out.insert(QStringLiteral("model"), doc->displayName());
    out.insert(QStringLiteral("input"), QJsonArray::fromStringList(inputs->descriptions));
    out.insert(QStringLiteral("remote"), result.traffic.toJson());
    out.insert(QStringLiteral("per_node"), result.perNode);
    out.insert(QStringLiteral("unmatched_host_nodes"), result.unmatchedNodes);
    if (result.peakBytes >= 0) out.insert(QStringLiteral("peak_bytes_host"), result.peakBytes);
    printJson(out);
  } else {
    printText(profileText(profile));
  }
  return int(kOk);
}

}  // namespace

Command profileCommand() {
  Command c{
      QStringLiteral("profile"),
      QStringLiteral("Time every node over repeated runs; export a Chrome trace."),
      QStringLiteral("MODEL [--input SPEC] [--runs N] [--warmup N] [--seed N] [--trace F.json] [--memory] [--json]"),
      {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A .pt or .pt2 file (or --sample NAME)."));
    addInputOption(parser);
    parser.addOption({QStringLiteral("runs"), QStringLiteral("Measured runs (default 20)."), QStringLiteral("N"),
                      QStringLiteral("20")});
    parser.addOption({QStringLiteral("warmup"), QStringLiteral("Warm-up runs (default 3)."), QStringLiteral("N"),
                      QStringLiteral("3")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of the random inputs (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("cpu (default), cuda[:N] where available, or ssh://HOST/DEVICE[?python=PATH] to "
                                     "profile on another machine (docs/remote.md)."),
                      QStringLiteral("D"), QStringLiteral("cpu")});
    parser.addOption({QStringLiteral("trace"),
                      QStringLiteral("Write a Chrome-trace JSON (chrome://tracing, Perfetto)."), QStringLiteral("F")});
    parser.addOption({QStringLiteral("memory"),
                      QStringLiteral("Also record the bytes each node allocates and the peak (one extra run).")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    bool ok1 = false, ok2 = false, ok3 = false;
    core::profile::ProfileOptions options;
    options.runs = parser.value(QStringLiteral("runs")).toInt(&ok1);
    options.warmup = parser.value(QStringLiteral("warmup")).toInt(&ok2);
    const quint64 seed = parser.value(QStringLiteral("seed")).toULongLong(&ok3);
    if (!ok1 || !ok2 || !ok3 || options.runs < 1 || options.warmup < 0)
      return fail(QStringLiteral("--runs must be >= 1, --warmup >= 0 and --seed a number"));
    options.device = parser.value(QStringLiteral("device"));
    options.recordMemory = parser.isSet(QStringLiteral("memory"));
    if (parser.isSet(QStringLiteral("trace")) && !outputAllowed(parser, parser.value(QStringLiteral("trace"))))
      return int(kUsageOrInput);
    if (core::remote::isRemoteDevice(options.device)) return profileRemotely(parser, options);
    auto doc = openModel(parser);
    if (!doc) return int(kUsageOrInput);
    if (const auto device = core::run::Executor::parseDevice(options.device, nullptr))  // device_remap.h
      if (const QString note = core::run::deviceRemapNote(*doc->current(), *device); !note.isEmpty())
        report(core::model::Diagnostic::info(QStringLiteral("profile"), note));
    const auto inputs = inputsOrFail(parser, *doc, seed);
    if (!inputs) return int(kUsageOrInput);
    auto profiled = core::profile::runProfile(doc->current(), *inputs, options);
    if (!profiled.ok()) return fail(profiled.diagnostics);
    const core::profile::Profile& profile = *profiled.profile;
    if (parser.isSet(QStringLiteral("trace"))) {
      const QByteArray json =
          QJsonDocument(core::report::chromeTrace(profile, doc->displayName())).toJson(QJsonDocument::Compact);
      if (const QString why = core::io::writeAtomically(parser.value(QStringLiteral("trace")), json); !why.isEmpty())
        return fail(QStringLiteral("cannot write %1: %2").arg(parser.value(QStringLiteral("trace")), why));
    }
    if (parser.isSet(QStringLiteral("json"))) {
      QJsonObject out = core::report::profileReport(profile);
      out.insert(QStringLiteral("model"), doc->displayName());
      out.insert(QStringLiteral("input"), QJsonArray::fromStringList(inputs->descriptions));
      printJson(out);
    } else {
      printText(profileText(profile));
    }
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
