#include "app/cli/commands.h"
#include "core/document/document_service.h"
#include "core/edit/session.h"
#include "core/io/save.h"
#include "core/rewrite/module_replace.h"
#include "core/rewrite/python_rules.h"
#include "core/report/rewrite_report.h"

#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QTemporaryDir>


namespace graft::cli {

namespace {

// Saves `revision` as a file of `out`'s name in a scratch folder, removed afterwards: whether it
// can be saved as `out`, without touching `out`.
core::io::SaveResult trialSave(const core::model::Document& doc,
                               const std::shared_ptr<const core::model::Revision>& revision, const QString& out) {
  QTemporaryDir scratch;
  return core::io::saveAs(doc, revision, scratch.filePath(QFileInfo(out).fileName()), nullptr);
}

}  // namespace

using core::rewrite::RuleLibrary;

Command rulesCommand() {
  Command c{QStringLiteral("rules"),
            QStringLiteral("List the rewrite rules (built-in and the user rule folder) and passes."),
            QStringLiteral("[--json]"),
            {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("json"), QStringLiteral("Machine-readable JSON on stdout.")});
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    const auto library = RuleLibrary::load();
    graft::cli::report(library.diagnostics());
    QJsonObject report = core::report::rulesReport(library);
    // Text rules and the Python rule files beside them, each saying its language.
    QJsonArray rules;
    for (const auto& r : report.value(QStringLiteral("rules")).toArray()) {
      QJsonObject o = r.toObject();
      o.insert(QStringLiteral("language"), QStringLiteral("ir"));
      rules.append(o);
    }
    for (const auto& r : library.pythonRules())
      rules.append(QJsonObject{{"id", r.id}, {"title", r.title}, {"description", r.description}, {"source", r.source},
                               {"kind", "pattern"}, {"language", "python"}, {"file", r.path}});
    report.insert(QStringLiteral("rules"), rules);
    if (parser.isSet(QStringLiteral("json"))) {
      printJson(report);
    } else {
      QString text;
      for (const auto& r : library.rules()) text += QStringLiteral("%1\t%2\t(%3)\n").arg(r.id, r.title, r.source);
      for (const auto& r : library.pythonRules())
        text += QStringLiteral("%1\t%2\t(%3, Python)\n").arg(r.id, r.title, r.source);
      text += QStringLiteral("passes: %1").arg(core::rewrite::passNames().join(QStringLiteral(", ")));
      for (const auto& e : library.problems()) text += QStringLiteral("\nnot loaded: ") + e.toString();
      printText(text);
    }
    return int(kOk);
  };
  return c;
}

Command rewriteCommand() {
  Command c{QStringLiteral("rewrite"),
            QStringLiteral("Apply rules and passes to a model and save the result."),
            QStringLiteral("MODEL --rule ID|FILE|FILE.py [--rule ...] [--pass NAME ...] [--replace-module "
                           "CLASS=FILE.py:NewModule [--param NEW=OLD ...]] "
                           "[--at NODE] (-o OUT.pt | --dry-run [-o OUT.pt]) [--json]"),
            {}};
  c.run = [c](const QStringList& args) {
    QCommandLineParser parser;
    addModelOptions(parser);
    parser.addPositionalArgument(QStringLiteral("MODEL"), QStringLiteral("A .pt or .pt2 file (or --sample NAME)."));
    parser.addOption({QStringLiteral("rule"),
                      QStringLiteral("A rule id, .rule file or Python rule file .py (repeatable)."),
                      QStringLiteral("ID|FILE")});
    parser.addOption({QStringLiteral("replace-module"),
                      QStringLiteral("Replace every instance of module class CLASS by NewModule's forward from "
                                     "FILE.py, with the old parameters (repeatable)."),
                      QStringLiteral("CLASS=FILE.py:NewModule")});
    parser.addOption(
        {QStringLiteral("param"),
         QStringLiteral("With --replace-module: NewModule's parameter NEW is the old module's OLD (repeatable)."),
         QStringLiteral("NEW=OLD")});
    parser.addOption({QStringLiteral("pass"), QStringLiteral("A libtorch pass (repeatable)."), QStringLiteral("NAME")});
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("Where to save the rewritten model."),
                      QStringLiteral("OUT.pt")});
    parser.addOption({QStringLiteral("at"),
                      QStringLiteral("Rewrite only the match covering this node id (one --rule; ids from --dry-run)."),
                      QStringLiteral("NODE")});
    parser.addOption({QStringLiteral("dry-run"),
                      QStringLiteral("List each rule's matches (sites with node ids) without rewriting or saving; with "
                                     "-o, also check that the result can be saved as OUT.")});
    addInputOption(parser);  // what a changed TorchScript revision is run on before it is saved
    if (!parseOrExit(parser, c, args)) return int(kUsageOrInput);
    // Steps run in command-line order, rules and passes interleaved as written.
    QVector<core::rewrite::Step> steps;
    QHash<int, QString> pythonRules;  // step index → Python rule file, compiled once the model's format is known
    const auto library = RuleLibrary::load();
    QStringList argv = args;
    for (int i = 0; i + 1 < argv.size(); ++i) {
      const QString& a = argv[i];
      QString value;
      bool isRule = false, isPass = false;
      if (a == QLatin1String("--rule") || a == QLatin1String("--pass")) {
        value = argv[++i];
        isRule = a == QLatin1String("--rule");
        isPass = !isRule;
      }
      const auto* shipped = isRule ? library.findPython(value) : nullptr;
      if (isRule && (shipped || core::rewrite::isPythonRuleFile(value))) {
        pythonRules.insert(int(steps.size()), shipped ? shipped->path : value);
        core::rewrite::Rule placeholder;
        placeholder.id = value;
        steps.push_back(core::rewrite::Step::ofRule(placeholder));
      } else if (isRule) {
        QString error;
        core::model::Diagnostic diagnostic;
        auto rule = library.resolve(value, &error, &diagnostic);
        if (!rule) return fail(core::model::Diagnostics{diagnostic});
        steps.push_back(core::rewrite::Step::ofRule(*rule));
      } else if (isPass) {
        if (!core::rewrite::isPassName(value))
          return fail(QStringLiteral("unknown pass '%1' (known: %2)")
                          .arg(value, core::rewrite::passNames().join(QStringLiteral(", "))));
        steps.push_back(core::rewrite::Step::ofPass(value));
      }
    }
    for (const auto& a : argv)
      if (a.startsWith(QLatin1String("--rule=")) || a.startsWith(QLatin1String("--pass=")))
        return fail(QStringLiteral("write --rule ID and --pass NAME as two arguments"));
    const QStringList replaceModules = parser.values(QStringLiteral("replace-module"));
    if (steps.isEmpty() && replaceModules.isEmpty())
      return fail(QStringLiteral("nothing to do: give --rule ID|FILE or --pass NAME"));
    if (parser.isSet(QStringLiteral("param")) && replaceModules.isEmpty())
      return fail(QStringLiteral("--param maps parameters for --replace-module"));
    const bool dryRun = parser.isSet(QStringLiteral("dry-run"));
    if (parser.isSet(QStringLiteral("at"))) {
      bool isId = false;
      const auto node = parser.value(QStringLiteral("at")).toULongLong(&isId);
      if (!isId) return fail(QStringLiteral("--at takes a node id (a number, as --dry-run lists them)"));
      if (steps.size() != 1 || !steps[0].pass.isEmpty())
        return fail(QStringLiteral("--at applies to exactly one --rule"));
      steps[0].onlyAt = node;
    }
    if (dryRun)
      for (const auto& s : steps)
        if (!s.pass.isEmpty())
          return fail(QStringLiteral("--dry-run lists rule matches; pass '%1' has none to list").arg(s.pass));
    const QString out = parser.value(QStringLiteral("output"));
    if (out.isEmpty() && !dryRun)
      return fail(
          QStringLiteral("missing -o OUT: the file to write (.pt2 for a torch.export program, .pt for TorchScript)"));
    if (!out.isEmpty() && !outputAllowed(parser, out)) return int(kUsageOrInput);
    // The document service owns the model and is the one gate for its changes (core/document).
    core::document::DocumentService service;
    service.open(openModel(parser));
    const core::model::Document* doc = service.document();
    if (!doc) return int(kUsageOrInput);
    // Python rules: compiled now, in the form of the model's format (TorchScript or torch.export).
    if (!pythonRules.isEmpty()) {
      QVector<core::rewrite::Step> expanded;
      for (int i = 0; i < steps.size(); ++i) {
        if (!pythonRules.contains(i)) {
          expanded.push_back(steps[i]);
          continue;
        }
        const auto set = core::rewrite::compilePythonRules(pythonRules.value(i), core::rewrite::siteRanks(*doc));
        if (!set.ok()) return fail(core::model::Diagnostics{set.error.diagnostic()});
        const auto& rules = set.forFormat(doc->format());
        if (steps[i].onlyAt != core::model::kNoNode && rules.size() != 1)
          return fail(QStringLiteral("--at applies to exactly one rule; %1 has %2")
                          .arg(pythonRules.value(i))
                          .arg(rules.size()));
        for (const auto& r : rules) {
          auto step = core::rewrite::Step::ofRule(r);
          step.onlyAt = steps[i].onlyAt;
          expanded.push_back(step);
        }
      }
      steps = expanded;
    }
    // Module replacements: one step per instance, each limited to that instance's match.
    QSet<int> moduleSteps;
    for (const QString& spec : replaceModules) {
      auto request = core::rewrite::parseModuleReplacement(spec, parser.values(QStringLiteral("param")));
      if (!request.error.isEmpty()) return fail(request.error);
      const auto plan = core::rewrite::planModuleReplacement(*doc, request);
      if (plan.error.isError()) return fail(core::model::Diagnostics{plan.error.diagnostic()});
      for (const auto& d : plan.diagnostics) report(core::model::Diagnostics{d});
      for (const auto& s : plan.steps) {
        moduleSteps.insert(int(steps.size()));
        steps.push_back(s);
      }
      if (plan.steps.isEmpty())
        return fail(
            QStringLiteral("--replace-module %1: no instance of %2 could be replaced").arg(spec, request.className));
    }
    if (dryRun) {
      // Each rule on the model as loaded, independently: nothing is rewritten.
      core::rewrite::ApplyResult preview;
      preview.opsBefore = preview.opsAfter = core::rewrite::opCount(*doc->current());
      for (const auto& s : steps) {
        QString error;
        preview.reports.push_back(core::rewrite::previewMatches(*doc->current(), s.rule, &error));
        if (!error.isEmpty()) return fail(QStringLiteral("%1: %2").arg(s.rule.id, error));
      }
      // With -o, the rewrite is also saved to a scratch copy: a file it could not be saved as
      // fails here as it would without --dry-run.
      if (!out.isEmpty()) {
        auto result = service.applyRewrite(steps);
        if (!result.ok()) return fail(result.diagnostics());
        if (const auto saved = trialSave(*doc, result.revision, out); !saved.ok) return fail(saved.diagnostics(out));
      }
      if (parser.isSet(QStringLiteral("json"))) printJson(core::report::rewriteReport(preview));
      else printText(core::report::rewriteText(preview));
      return int(kOk);
    }
    auto result = service.applyRewrite(steps);
    if (!result.ok()) return fail(result.diagnostics());
    // A module replacement step is limited to its instance: the other instances are not skips.
    for (int i : moduleSteps)
      if (i < result.reports.size())
        result.reports[i].skipped.removeIf([](const core::rewrite::SkippedMatch& s) { return s.notChosen; });
    report(result.diagnostics());  // skipped matches, as warnings
    std::optional<core::model::InputSet> checkInputs;
    if (parser.isSet(QStringLiteral("input")) && !(checkInputs = inputsOrFail(parser, *doc, 0)))
      return int(kUsageOrInput);
    const auto saved = core::io::saveAs(*doc, result.revision, out, checkInputs ? &*checkInputs : nullptr);
    if (!saved.ok) return fail(saved.diagnostics(out));
    report(saved.diagnostics(out));  // saved without a run check, when nothing gave inputs
    if (parser.isSet(QStringLiteral("json"))) printJson(core::report::rewriteReport(result));
    else printText(core::report::rewriteText(result));
    return int(kOk);
  };
  return c;
}

}  // namespace graft::cli
