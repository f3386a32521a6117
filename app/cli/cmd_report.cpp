#include "app/cli/commands.h"
#include "core/edit/graph_diff.h"
#include "core/io/atomic_write.h"
#include "core/layout/layout_engine.h"
#include "core/model/document.h"
#include "core/profile/profile_job.h"
#include "core/report/html_report.h"
#include "core/report/versions.h"
#include "core/run/compare_job.h"
#include "ui/render/report_diagrams.h"

#include <QtCore/QJsonArray>

namespace graft::cli {

namespace {

// The diagram as the GUI would draw it: all open for a model small enough to read whole,
// else the top two levels.
core::layout::Diagram layOut(const core::model::GraphView& view, const QString& expand) {
  core::layout::LayoutEngine engine;
  engine.setView(std::make_shared<core::model::GraphView>(view));
  bool numeric = false;
  const int depth = expand.toInt(&numeric);
  if (expand == QLatin1String("all") || (expand.isEmpty() && view.opCount() <= 400))
    return engine.layout(engine.expandAll());
  return engine.layout(engine.expandToDepth(numeric ? depth : 1));
}

}  // namespace

Command reportCommand() {
  Command c{
      QStringLiteral("report"),
      QStringLiteral("Write one self-contained HTML page: diagram, facts, history, differences, compare, profile."),
      QStringLiteral(
          "MODEL [--against B] [--input SPEC ...] [--runs N] [--no-profile] [--expand all|N] --html F [--json]"),
      {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A .pt or .pt2 file (or --sample NAME)."));
    parser.addOption({QStringLiteral("against"),
                      QStringLiteral("A second model: the report diffs, compares and profiles both."),
                      QStringLiteral("B")});
    addInputOption(parser);
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of the random inputs (default 0)."),
                      QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("runs"), QStringLiteral("Profiled runs per model (default 10)."),
                      QStringLiteral("N"), QStringLiteral("10")});
    parser.addOption({QStringLiteral("no-profile"), QStringLiteral("Leave the profile out.")});
    parser.addOption({QStringLiteral("expand"),
                      QStringLiteral("Diagram depth: all, or N levels (default: all up to 400 ops, else 1)."),
                      QStringLiteral("all|N")});
    parser.addOption({QStringLiteral("html"), QStringLiteral("The HTML file to write."), QStringLiteral("F")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    const QString out = parser.value(QStringLiteral("html"));
    if (out.isEmpty()) return fail(QStringLiteral("say where to write the page: --html F"));
    bool okRuns = false, okSeed = false;
    const int runs = parser.value(QStringLiteral("runs")).toInt(&okRuns);
    const quint64 seed = parser.value(QStringLiteral("seed")).toULongLong(&okSeed);
    if (!okRuns || runs < 1 || !okSeed) return fail(QStringLiteral("--runs must be >= 1 and --seed a number"));
    if (!outputAllowed(parser, out)) return int(kUsageOrInput);
    auto a = openModel(parser, 0);
    if (!a) return int(kUsageOrInput);
    std::unique_ptr<core::model::Document> b;
    if (parser.isSet(QStringLiteral("against"))) {
      auto loaded =
          core::io::loadFile(parser.value(QStringLiteral("against")), {true, parser.isSet(QStringLiteral("trust"))});
      if (!loaded.ok()) return fail(loaded.error.diagnostics(parser.value(QStringLiteral("against"))));
      b = std::move(loaded.document);
    }

    core::report::HtmlReport r =
        core::report::assembleReport(*a, *a->current(), b.get(), b ? b->current().get() : nullptr, a->displayName(),
                                     b ? b->displayName() : QString());
    // The inputs of compare and profile: --input, else A's defaults (io::inputsFor). Without
    // them the page is still written, saying why there is no comparison or profile.
    auto resolved = core::io::inputsFor(*a, parser.values(QStringLiteral("input")), seed);
    const QString inputHint = QStringLiteral("give the inputs with --input SPEC");
    const core::model::InputsPtr inputs =
        resolved.inputs ? std::make_shared<const core::model::InputSet>(std::move(*resolved.inputs)) : nullptr;
    if (!inputs) {
      auto warnings = resolved.diagnostics(QStringLiteral("compare"), inputHint);
      for (auto& d : warnings) d.severity = core::model::Severity::Warning;
      report(warnings);
    }
    if (b) {
      if (inputs) {
        core::run::CompareRequest request;
        request.a = a->current();
        request.b = b->current();
        request.pairWith(*a, *b);
        request.inputs = inputs;
        r.compare = core::run::runCompare(request);
        report(r.compare->diagnostics());
      } else {
        r.compareNote = QStringLiteral("No comparison: %1").arg(resolved.error);
      }
    } else {
      r.compareNote = QStringLiteral("Give a second model with --against to compare.");
    }
    if (!parser.isSet(QStringLiteral("no-profile"))) {
      core::profile::ProfileOptions options;
      options.runs = runs;
      options.warmup = 2;
      options.recordShapes = false;
      if (!inputs) {
        r.profileNote = QStringLiteral("No profile: %1 (%2)").arg(resolved.error, inputHint);
      } else {
        auto before = core::profile::runProfile(a->current(), *inputs, options);
        auto after = before.ok() && b ? core::profile::runProfile(b->current(), *inputs, options)
                                      : core::profile::ProfileResult{};
        auto problems = before.ok() ? after.diagnostics : before.diagnostics;
        if (problems.empty()) {
          r.before = before.profile;
          r.beforeLabel = a->displayName();
          if (b) {
            r.after = after.profile;
            r.afterLabel = b->displayName();
          }
        } else {
          r.profileNote = QStringLiteral("No profile: %1").arg(problems.front().message);
          for (auto& d : problems) d.severity = core::model::Severity::Warning;  // the page is still written
          report(problems);
        }
      }
    } else {
      r.profileNote = QStringLiteral("The profile was left out (--no-profile).");
    }
    const QString expand = parser.value(QStringLiteral("expand"));
    const auto viewA = core::model::GraphView::build(*a->current(), *a);
    ui::addReportDiagram(r, QStringLiteral("A: %1").arg(a->displayName()), layOut(viewA, expand), viewA, false);
    if (b) {
      const auto viewB = core::model::GraphView::build(*b->current(), *b);
      ui::addReportDiagram(r, QStringLiteral("B: %1").arg(b->displayName()), layOut(viewB, expand), viewB, true);
    }
    ui::setReportLegend(r);
    const QByteArray html = core::report::htmlReport(r);
    if (const QString why = core::io::writeAtomically(out, html); !why.isEmpty())
      return fail(QStringLiteral("cannot write %1: %2").arg(out, why));
    if (parser.isSet(QStringLiteral("json"))) {
      QJsonObject j{{"html", out}, {"bytes", html.size()}, {"diagrams", int(r.diagrams.size())}};
      if (r.diff) j.insert(QStringLiteral("diff"), r.diff->toJson().value(QStringLiteral("summary")));
      j.insert(QStringLiteral("compare"), r.compare && r.compare->ok ? QJsonValue(r.compare->equal) : QJsonValue());
      j.insert(QStringLiteral("profile"), r.before.has_value());
      if (r.before && r.after && r.after->run.median > 0)
        j.insert(QStringLiteral("speedup"), r.before->run.median / r.after->run.median);
      printJson(j);
    } else {
      printText(QStringLiteral("wrote %1 (%2 KiB)\n").arg(out).arg(html.size() / 1024));
    }
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
