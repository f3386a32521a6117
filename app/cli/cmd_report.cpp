#include "app/cli/commands.h"
#include "core/edit/graph_diff.h"
#include "core/io/atomic_write.h"
#include "core/layout/layout_engine.h"
#include "core/model/document.h"
#include "core/profile/profile_job.h"
#include "core/report/html_report.h"
#include "core/report/versions.h"
#include "core/run/compare_job.h"
#include "core/run/input_set.h"
#include "ui/report_diagrams.h"

#include <QtCore/QFileInfo>
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
  if (expand == QLatin1String("all") || (expand.isEmpty() && view.opCount() <= 400)) return engine.layout(engine.expandAll());
  return engine.layout(engine.expandToDepth(numeric ? depth : 1));
}

bool samePath(const QString& x, const QString& y) {
  const QFileInfo a(x), b(y);
  return a.exists() && b.exists() ? a.canonicalFilePath() == b.canonicalFilePath() : a.absoluteFilePath() == b.absoluteFilePath();
}

}  // namespace

Command reportCommand() {
  Command c{QStringLiteral("report"),
            QStringLiteral("Write one self-contained HTML page: diagram, facts, history, differences, compare, profile."),
            QStringLiteral("MODEL [--against B] [--input SPEC ...] [--runs N] [--no-profile] [--expand all|N] --html F [--json]"), {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A .pt or .pt2 file (or --sample NAME)."));
    parser.addOption({QStringLiteral("against"), QStringLiteral("A second model: the report diffs, compares and profiles both."),
                      QStringLiteral("B")});
    parser.addOption({QStringLiteral("input"), QStringLiteral("An input spec as compare and profile take it; repeat per input."),
                      QStringLiteral("SPEC")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of the random inputs (default 0)."), QStringLiteral("N"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("runs"), QStringLiteral("Profiled runs per model (default 10)."), QStringLiteral("N"), QStringLiteral("10")});
    parser.addOption({QStringLiteral("no-profile"), QStringLiteral("Leave the profile out.")});
    parser.addOption({QStringLiteral("expand"), QStringLiteral("Diagram depth: all, or N levels (default: all up to 400 ops, else 1)."),
                      QStringLiteral("all|N")});
    parser.addOption({QStringLiteral("html"), QStringLiteral("The HTML file to write."), QStringLiteral("F")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    const QString out = parser.value(QStringLiteral("html"));
    if (out.isEmpty()) return fail(QStringLiteral("say where to write the page: --html F"));
    bool okRuns = false, okSeed = false;
    const int runs = parser.value(QStringLiteral("runs")).toInt(&okRuns);
    const quint64 seed = parser.value(QStringLiteral("seed")).toULongLong(&okSeed);
    if (!okRuns || runs < 1 || !okSeed) return fail(QStringLiteral("--runs must be >= 1 and --seed a number"));
    auto a = openModel(parser, 0);
    if (!a) return int(kUsageOrInput);
    std::unique_ptr<core::model::Document> b;
    if (parser.isSet(QStringLiteral("against"))) {
      auto loaded = core::io::loadFile(parser.value(QStringLiteral("against")));
      if (!loaded.ok()) return fail(QStringLiteral("cannot open %1: %2").arg(parser.value(QStringLiteral("against")), loaded.error.headline));
      b = std::move(loaded.document);
    }
    for (const auto* doc : {a.get(), b.get()})
      if (doc && !doc->sourcePath().isEmpty() && samePath(doc->sourcePath(), out))
        return fail(QStringLiteral("%1 is an input model: choose another --html file").arg(out));

    core::report::HtmlReport r;
    r.title = b ? QStringLiteral("%1 vs %2").arg(a->displayName(), b->displayName()) : a->displayName();
    const auto v = core::report::versions();
    r.generator = QStringLiteral("Graft %1, libtorch %2").arg(v.graft, v.torch);
    r.facts = core::report::modelFacts(*a);
    r.history = core::report::revisionHistory(*a);
    // One input set for the compare and both profiles: the --input specs, else the model's defaults.
    auto resolved = core::run::inputsFor(*a, parser.values(QStringLiteral("input")), seed);
    const QString noInputs = resolved.missingShape >= 0
                                 ? QStringLiteral("%1: give them with --input").arg(resolved.error)
                                 : resolved.error;
    core::run::InputsPtr inputs =
        resolved.inputs ? std::make_shared<const core::run::InputSet>(std::move(*resolved.inputs)) : nullptr;
    if (b) {
      r.diff = core::edit::diffGraphs(*a->current(), *b->current(), core::edit::DiffMatching::ByStructure);
      r.diffCaption = QStringLiteral("%1 → %2").arg(a->displayName(), b->displayName());
      if (inputs) {
        core::run::CompareRequest request;
        request.a = a->current();
        request.b = b->current();
        request.inputs = inputs;
        r.compare = core::run::runCompare(request);
      } else {
        r.compareNote = QStringLiteral("No compare: %1").arg(noInputs);
      }
    } else {
      r.compareNote = QStringLiteral("Give a second model with --against to compare.");
    }
    if (parser.isSet(QStringLiteral("no-profile"))) {
      r.profileNote = QStringLiteral("The profile was left out (--no-profile).");
    } else if (!inputs) {
      r.profileNote = QStringLiteral("No profile: %1").arg(noInputs);
    } else {
      core::profile::ProfileOptions options;
      options.runs = runs;
      options.warmup = 2;
      options.recordShapes = false;
      try {
        r.before = core::profile::profileWithInputs(*a->current(), *inputs, options);
        r.beforeLabel = a->displayName();
        if (b) {
          r.after = core::profile::profileWithInputs(*b->current(), *inputs, options);
          r.afterLabel = b->displayName();
        }
      } catch (const std::exception& e) {
        r.before.reset();
        r.after.reset();
        r.profileNote = QStringLiteral("No profile: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0));
      }
    }
    const QString expand = parser.value(QStringLiteral("expand"));
    const auto viewA = core::model::GraphView::build(*a->current());
    ui::addReportDiagram(r, QStringLiteral("A: %1").arg(a->displayName()), layOut(viewA, expand), viewA, false);
    if (b) {
      const auto viewB = core::model::GraphView::build(*b->current());
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
      if (r.before && r.after && r.after->run.median > 0) j.insert(QStringLiteral("speedup"), r.before->run.median / r.after->run.median);
      printJson(j);
    } else {
      printText(QStringLiteral("wrote %1 (%2 KiB)\n").arg(out).arg(html.size() / 1024));
    }
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
