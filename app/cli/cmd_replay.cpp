#include "app/cli/commands.h"
#include "app/cli/remote_progress.h"
#include "core/document/document_service.h"
#include "core/edit/session.h"
#include "core/io/save.h"
#include "core/model/graph_view.h"
#include "core/jobs/ledger.h"
#include "core/remote/remote_device.h"
#include "core/remote/remote_ledger.h"
#include "core/remote/remote_model.h"

#include <QtCore/QJsonArray>

#include <QtCore/QFileInfo>

namespace graft::cli {

// Applies a saved editing session (a GUI journal) to MODEL headlessly and saves the result.
Command replayCommand() {
  Command c{QStringLiteral("replay"), QStringLiteral("Apply a saved editing session to a model and save the result."),
            QStringLiteral("MODEL SESSION.json [-o OUT.pt] [--ledger [--input SPEC ...] [--device ssh://HOST/DEVICE]] "
                           "[--json]"),
            {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("Where to write the edited model."),
                      QStringLiteral("OUT.pt")});
    parser.addOption({QStringLiteral("ledger"),
                      QStringLiteral("Check every revision against the original (max abs error, pass/fail at "
                                     "--atol/--rtol) and time its forward (median of --runs).")});
    parser.addOption({QStringLiteral("input"),
                      QStringLiteral("An input for the ledger's runs (see compare --help). Repeat per input."),
                      QStringLiteral("SPEC")});
    parser.addOption({QStringLiteral("device"),
                      QStringLiteral("Ledger: run each revision on ssh://HOST/DEVICE[?python=PATH] (the original and "
                                     "the reference run here; docs/remote.md). Default: this machine's CPU."),
                      QStringLiteral("D")});
    parser.addOption({QStringLiteral("atol"), QStringLiteral("Ledger: absolute tolerance (default 1e-5)."),
                      QStringLiteral("X"), QStringLiteral("1e-5")});
    parser.addOption({QStringLiteral("rtol"), QStringLiteral("Ledger: relative tolerance (default 1e-4)."),
                      QStringLiteral("Y"), QStringLiteral("1e-4")});
    parser.addOption({QStringLiteral("runs"), QStringLiteral("Ledger: timed forwards per revision (default 5)."),
                      QStringLiteral("N"), QStringLiteral("5")});
    parser.addPositionalArgument(QStringLiteral("MODEL"),
                                 QStringLiteral("The model file the session was made on (.pt or .pt2)."));
    parser.addPositionalArgument(QStringLiteral("SESSION"), QStringLiteral("The session journal (.json)."));
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    const QStringList pos = parser.positionalArguments();
    const int sessionIndex = parser.isSet(QStringLiteral("sample")) ? 0 : 1;
    if (pos.size() != sessionIndex + 1) return fail(QStringLiteral("usage: graft-cli replay ") + c.usage);
    const QString out = parser.value(QStringLiteral("output"));
    const bool ledger = parser.isSet(QStringLiteral("ledger"));
    if (out.isEmpty() && !ledger) return fail(QStringLiteral("missing -o OUT.pt (or --ledger)"));
    if (!out.isEmpty() && !outputAllowed(parser, out)) return int(kUsageOrInput);
    core::jobs::LedgerOptions ledgerOptions;
    bool numbersOk = true, ok = false;
    ledgerOptions.atol = parser.value(QStringLiteral("atol")).toDouble(&ok);
    numbersOk = numbersOk && ok && ledgerOptions.atol >= 0;
    ledgerOptions.rtol = parser.value(QStringLiteral("rtol")).toDouble(&ok);
    numbersOk = numbersOk && ok && ledgerOptions.rtol >= 0;
    ledgerOptions.runs = parser.value(QStringLiteral("runs")).toInt(&ok);
    numbersOk = numbersOk && ok && ledgerOptions.runs >= 1;
    if (!numbersOk) return fail(QStringLiteral("--atol and --rtol need non-negative numbers, --runs a positive count"));
    QString error;
    const auto journal = core::edit::Session::readJournal(pos[sessionIndex], &error);
    if (!journal) return fail(error);
    // The document service owns the model and is the one gate for its changes (core/document).
    core::document::DocumentService service;
    service.open(openModel(parser));
    const core::model::Document* doc = service.document();
    if (!doc) return int(kUsageOrInput);
    const int opsBefore = core::model::GraphView::build(*doc->current()).opCount();
    const auto r = service.replay(*journal);
    if (!r.ok) {
      // The revisions replayed so far go before the error is reported: after running out of
      // memory, reporting needs some back.
      const auto diagnostics = r.diagnostics(pos[sessionIndex]);
      service.close();
      return fail(diagnostics);
    }
    report(r.diagnostics(pos[sessionIndex]));  // what a journal cut short dropped
    if (!out.isEmpty()) {
      const auto saved = core::io::saveAs(*doc, doc->current(), out);
      if (!saved.ok) return fail(saved.diagnostics(out));
      report(saved.diagnostics(out));
    }
    const int opsAfter = core::model::GraphView::build(*doc->current()).opCount();
    QJsonArray ledgerJson;
    QStringList ledgerText;
    bool allPass = true;
    if (ledger) {
      const auto inputs = inputsOrFail(parser, *doc, 0);
      if (!inputs) return int(kUsageOrInput);
      std::optional<core::remote::RemoteDevice> remote;
      if (parser.isSet(QStringLiteral("device"))) {
        remote = core::remote::parseRemoteDevice(parser.value(QStringLiteral("device")), &error);
        if (!remote) return fail(error);
      }
      for (int i = 0; i < doc->count(); ++i) {
        const auto rev = doc->revision(i);
        core::jobs::LedgerEntry entry;
        if (!remote) {
          entry = core::jobs::checkRevision(doc->original(), rev, *inputs, ledgerOptions);
        } else if (const auto model = core::remote::savedForRemote(*doc, rev, &error)) {
          entry = core::remote::checkRevisionRemote(doc->original(), *model, rev, *inputs, ledgerOptions, *remote,
                                                    printProgress);
        } else {
          entry.error = error;
        }
        QJsonObject o = entry.toJson();
        o.insert(QStringLiteral("revision"), i);
        o.insert(QStringLiteral("name"), rev->name());
        o.insert(QStringLiteral("parent"), doc->parentOf(i));
        o.insert(QStringLiteral("ops"), core::model::GraphView::build(*rev).opCount());
        ledgerJson.append(o);
        allPass = allPass && entry.ok && entry.pass;
        ledgerText << (entry.ok ? QStringLiteral("%1  %2  max abs %3  %4  %5 ms")
                                      .arg(i).arg(entry.pass ? QStringLiteral("pass") : QStringLiteral("FAIL"))
                                      .arg(entry.maxAbs, 0, 'g', 3).arg(rev->name()).arg(entry.medianMs, 0, 'f', 2)
                                : QStringLiteral("%1  error  %2: %3").arg(i).arg(rev->name(), entry.error));
      }
    }
    if (parser.isSet(QStringLiteral("json"))) {
      QJsonObject j{{"model", doc->displayName()}, {"edits", r.applied}, {"revisions", doc->count()},
                    {"current", doc->currentIndex()}, {"revision", doc->current()->name()},
                    {"ops_before", opsBefore}, {"ops_after", opsAfter},
                    {"output", out.isEmpty() ? QJsonValue() : QJsonValue(QFileInfo(out).absoluteFilePath())}};
      if (ledger) j.insert(QStringLiteral("ledger"), ledgerJson);
      printJson(j);
    } else {
      printText(out.isEmpty() ? QStringLiteral("replayed %1 edits; revision %2 “%3” (%4 → %5 ops)")
                                    .arg(r.applied)
                                    .arg(doc->currentIndex())
                                    .arg(doc->current()->name())
                                    .arg(opsBefore)
                                    .arg(opsAfter)
                              : QStringLiteral("replayed %1 edits; revision %2 “%3” (%4 → %5 ops) saved to %6")
                                    .arg(r.applied)
                                    .arg(doc->currentIndex())
                                    .arg(doc->current()->name())
                                    .arg(opsBefore)
                                    .arg(opsAfter)
                                    .arg(out));
      if (ledger) printText(ledgerText.join(QLatin1Char('\n')));
    }
    // With --ledger the answer is whether every revision still computes what the original does.
    return int(ledger && !allPass ? kAnswerNo : kOk);
  };
  return c;
}

}  // namespace graft::cli
