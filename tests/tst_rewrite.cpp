// Rewrite rules: every rule file's own self-tests (IR in, IR out, run numerically), the parser's
// line:column errors, skip reasons, NodeId carry-over, and graft-cli rewrite checked by stock
// PyTorch on torchvision models.
#include "core/edit/session.h"
#include "test_support.h"

#include "core/io/load.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/ir_text.h"
#include "core/rewrite/library.h"
#include "core/rewrite/passes.h"
#include "core/rewrite/rule_parser.h"
#include "core/rewrite/pattern_draft.h"
#include "core/model/module_path.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/script.h>

#include <QtCore/QDir>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtCore/QElapsedTimer>
#include <QtTest/QtTest>

Q_DECLARE_METATYPE(graft::core::rewrite::Rule)

using namespace graft::core;
using graft::test::runCli;
using graft::test::runPython;
using graft::test::testdata;

namespace {

QString sourceFile(const QString& rel) { return QDir(qEnvironmentVariable("GRAFT_SOURCE_DIR")).filePath(rel); }

// Tensor constants parsed from IR are uninitialised: give them values (positive, so a running
// variance stays valid).
void fillConstants(torch::jit::Graph& g) {
  for (auto* n : g.nodes())
    if (n->kind() == c10::prim::Constant && n->hasAttribute(c10::attr::value) &&
        n->kindOf(c10::attr::value) == torch::jit::AttributeKind::t)
      n->t(c10::attr::value).uniform_(0.5, 1.5);
}

QStringList opKinds(const torch::jit::Graph& g) {
  QStringList kinds;
  for (auto* n : g.nodes())
    if (!n->kind().is_prim()) kinds << QString::fromStdString(n->kind().toQualString());
  return kinds;
}

// Runs a graph on inputs made from its typed input sizes.
std::vector<c10::IValue> runGraph(const std::shared_ptr<torch::jit::Graph>& g, const std::vector<c10::IValue>& inputs) {
  torch::jit::GraphFunction fn("selftest", g->copy(), nullptr);
  torch::jit::Stack stack(inputs.begin(), inputs.end());
  fn.run(stack);
  return stack;
}

std::vector<c10::IValue> randomInputs(const torch::jit::Graph& g, bool* ok) {
  std::vector<c10::IValue> inputs;
  *ok = true;
  for (auto* v : g.inputs()) {
    auto t = v->type()->cast<c10::TensorType>();
    auto sizes = t ? t->sizes().concrete_sizes() : c10::nullopt;
    if (!sizes) { *ok = false; return {}; }
    inputs.emplace_back(torch::randn(*sizes));
  }
  return inputs;
}

// The rules under test: everything shipped plus the hand-authored example in tests/data/rules.
QVector<rewrite::Rule> allRules() {
  QVector<rewrite::Rule> rules = rewrite::RuleLibrary::load().rules();
  for (const QString& name : QDir(sourceFile("tests/data/rules")).entryList({"*.rule"}, QDir::Files)) {
    auto parsed = rewrite::parseRuleFile(sourceFile("tests/data/rules/" + name));
    if (parsed.ok()) rules.push_back(parsed.rule);
  }
  return rules;
}

// Which small model (tests/python/make_rewrite_models.py) checks each built-in rule numerically.
const QMap<QString, QString>& numericModels() {
  static const QMap<QString, QString> m{
      {"fold-conv-bn", "conv_bn"},       {"fold-linear-bn", "linear_bn"},
      {"fuse-add-relu", "add_relu"},     {"matmul-add-to-linear", "matmul_add"},
      {"fuse-linear-relu", "linear_relu"}, {"linear-to-matmul-add", "linear_relu"},
      {"remove-dropout", "dropout"},     {"silu-decompose", "activations"},
      {"hardswish-decompose", "activations"}, {"gelu-decompose", "activations"},
      // linear-to-addmm needs a known rank-2 input, which traced graphs do not record: its
      // numeric check is the typed self-test graph (selfTests), run before and after.
      {"linear-to-addmm", QString()}};
  return m;
}

QString shapeArg(const QJsonArray& shape) {
  QStringList parts;
  for (const auto& s : shape) parts << QString::number(s.toInt());
  return parts.join('x');
}

}  // namespace

class TstRewrite : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    // A user rule folder that is empty unless a test fills it.
    qputenv("GRAFT_RULES_DIR", userDir_.path().toUtf8());
    const auto r = runPython(sourceFile("tests/python/make_rewrite_models.py"), {testdata()});
    QVERIFY2(r.exitCode == 0, r.err.constData());
  }

  // A replacement that calls an operator libtorch does not have is refused when the rule is read,
  // naming it (also inside a block, and outside aten::); a replacement of the wrong type (an int
  // where a Tensor is taken, by an op or as forward's result) is refused when applied, the model
  // unchanged.
  void unknownOperatorsAndWrongTypesAreRefused_data() {
    QTest::addColumn<QString>("replacement");
    QTest::addColumn<QString>("refusal");  // empty: the rule reads
    QTest::newRow("unknown namespace") << "  %y = graft_missing::frobnicate(%x)\n" << "graft_missing::frobnicate";
    QTest::newRow("unknown prim") << "  %y = prim::Frobnicate(%x)\n" << "prim::Frobnicate";
    QTest::newRow("unknown aten in a block")
        << "  %c : bool = prim::Constant[value=1]()\n  %y = prim::If(%c)\n    block0():\n      %a = aten::relu_but_not(%x)\n"
           "      -> (%a)\n    block1():\n      -> (%x)\n"
        << "aten::relu_but_not";
    QTest::newRow("known ops in a block")
        << "  %c : bool = prim::Constant[value=1]()\n  %y = prim::If(%c)\n    block0():\n      %a = aten::sigmoid(%x)\n"
           "      -> (%a)\n    block1():\n      -> (%x)\n"
        << QString();
  }
  void unknownOperatorsAndWrongTypesAreRefused() {
    QFETCH(QString, replacement);
    QFETCH(QString, refusal);
    const QString text = "id: r\n[pattern]\ngraph(%x):\n  %y = aten::relu(%x)\n  return (%y)\n[replacement]\ngraph(%x):\n" + replacement +
                         "  return (%y)\n";
    const auto parsed = rewrite::parseRule(text, "r.rule");
    if (!refusal.isEmpty()) {
      QVERIFY(!parsed.ok());
      QVERIFY2(parsed.error.message.contains(refusal) && parsed.error.line >= 7, qPrintable(parsed.error.toString()));
      return;
    }
    QVERIFY2(parsed.ok(), qPrintable(parsed.error.toString()));
    // The mlp sample with relu returning its rank (an op takes it), or its head returning it
    // (forward's result): refused.
    auto doc = io::loadSample("mlp").document;
    const auto wrong = rewrite::parseRule("id: rank\n[pattern]\ngraph(%x):\n  %y = aten::relu(%x)\n  return (%y)\n"
                                          "[replacement]\ngraph(%x):\n  %y : int = aten::dim(%x)\n  return (%y)\n", "rank.rule");
    QVERIFY(wrong.ok());
    const auto applied = rewrite::applySteps(*doc->current(), {rewrite::Step::ofRule(wrong.rule)}, doc->ids());
    QVERIFY(!applied.ok());
    QVERIFY2(applied.error.contains(QLatin1String("int")), qPrintable(applied.error));
    const auto last = rewrite::parseRule("id: out\n[pattern]\ngraph(%a, %b, %c):\n  %y = aten::linear(%a, %b, %c)\n  return (%y)\n"
                                         "[replacement]\ngraph(%a, %b, %c):\n  %y : int = aten::dim(%a)\n  return (%y)\n"
                                         "[condition]\nmodule ~ head\n", "out.rule");
    QVERIFY(last.ok());
    const auto result = rewrite::applySteps(*doc->current(), {rewrite::Step::ofRule(last.rule)}, doc->ids());
    QVERIFY(!result.ok());
    QVERIFY2(result.error.contains(QLatin1String("int")) && result.error.contains(QLatin1String("Tensor")), qPrintable(result.error));
    QCOMPARE(doc->count(), 1);
  }

  void libraryHasEveryBuiltinRule() {
    const auto lib = rewrite::RuleLibrary::load();
    QVERIFY2(lib.problems().isEmpty(), lib.problems().isEmpty() ? "" : qPrintable(lib.problems().first().toString()));
    QStringList ids;
    for (const auto& r : lib.rules()) {
      ids << r.id;
      QCOMPARE(r.source, QStringLiteral("builtin"));
      int match = 0, noMatch = 0;
      for (const auto& t : r.tests) (t.shouldMatch ? match : noMatch)++;
      QVERIFY2(match >= 1 && noMatch >= 1, qPrintable(r.id + ": needs a match and a no-match test"));
      QVERIFY2(numericModels().contains(r.id), qPrintable(r.id + ": no numeric check listed"));
    }
    for (const auto& id : numericModels().keys()) QVERIFY2(ids.contains(id), qPrintable(id));
  }

  // Data-driven from the rule files themselves.
  void selfTests_data() {
    QTest::addColumn<rewrite::Rule>("rule");
    QTest::addColumn<int>("test");
    for (const auto& r : allRules())
      for (int i = 0; i < r.tests.size(); ++i)
        QTest::newRow(qPrintable(QStringLiteral("%1/%2%3").arg(r.id, r.tests[i].shouldMatch ? "match" : "no-match").arg(i)))
            << r << i;
  }
  void selfTests() {
    QFETCH(rewrite::Rule, rule);
    QFETCH(int, test);
    const rewrite::RuleTest& t = rule.tests[test];
    auto parsed = rewrite::parseIrAt(t.ir, t.line, rule.source);
    QVERIFY2(!parsed.error.isError(), qPrintable(parsed.error.toString()));
    fillConstants(*parsed.graph);
    auto graph = parsed.graph->copy();
    const QString before = QString::fromStdString(graph->toString());
    const auto counted = rewrite::applyRuleOnGraph(rule, graph, /*dryRun=*/true);
    QVERIFY2(counted.error.isEmpty(), qPrintable(counted.error));
    QCOMPARE(QString::fromStdString(graph->toString()), before);  // a dry run changes nothing
    const auto applied = rewrite::applyRuleOnGraph(rule, graph, false);
    QVERIFY2(applied.error.isEmpty(), qPrintable(applied.error));
    QCOMPARE(applied.matches, counted.matches);
    graph->lint();
    QCOMPARE(rewrite::checkSchemas(*graph), QString());
    if (!t.shouldMatch) {
      QCOMPARE(applied.matches, 0);
      QCOMPARE(QString::fromStdString(graph->toString()), before);
      return;
    }
    QVERIFY2(applied.matches >= 1, qPrintable(rule.id + " did not match its own test"));
    QVERIFY(QString::fromStdString(graph->toString()) != before);
    if (!t.expect.isEmpty()) {
      auto expected = rewrite::parseIrAt(t.expect, t.expectLine, rule.source);
      QVERIFY(!expected.error.isError());
      QCOMPARE(opKinds(*graph), opKinds(*expected.graph));
    }
    bool typed = false;
    const auto inputs = randomInputs(*parsed.graph, &typed);
    QVERIFY2(typed, "test IR needs sized inputs, e.g. %x : Float(2, 5)");
    const auto want = runGraph(parsed.graph, inputs);
    const auto got = runGraph(graph, inputs);
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      QVERIFY2(torch::allclose(got[i].toTensor(), want[i].toTensor(), 1e-5, 1e-5),
               qPrintable(QStringLiteral("max abs %1").arg((got[i].toTensor() - want[i].toTensor()).abs().max().item<double>())));
  }

  void parseErrorsNameLineAndColumn_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");  // "line:column: message start"
    const QString head = "id: x\ntitle: t\n";
    QTest::newRow("unclosed call") << head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x\n  return (%r)\n[replacement]\ngraph(%x):\n  return (%x)\n"
                                   << "6:3: expected ) but found 'return'";
    QTest::newRow("unknown value") << head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%q)\n[replacement]\ngraph(%x):\n  return (%x)\n"
                                   << "6:13: Cannot find a variable with name 'q'";
    QTest::newRow("unknown op") << head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x):\n  %r = aten::frobnicate(%x)\n  return (%r)\n"
                                << "9:8: unknown operator aten::frobnicate";
    QTest::newRow("unknown section") << head + "[patern]\n" << "3:2: unknown section [patern]";
    QTest::newRow("bad condition") << head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x):\n  return (%x)\n[condition]\n  %x is big\n"
                                   << "11:3: unknown condition '%x is big'";
    QTest::newRow("inline condition") << head + "[condition] module ~\n" << "3:1: unknown condition 'module ~'";
    QTest::newRow("no key") << QString("id: x\nthis is not a key\n") << "2:1: expected `key: value`";
    QTest::newRow("unknown key") << QString("id: x\n  colour: red\n") << "2:3: unknown key 'colour'";
    QTest::newRow("no id") << QString("title: t\n") << "1:1: missing `id:`";
    QTest::newRow("no replacement") << head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n" << "missing [replacement]";
    const QString reluToX = head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x):\n  return (%x)\n";
    QTest::newRow("unclosed glob") << reluToX + "[condition]\nmodule ~ [\n" << "11:10: condition 'module ~ [': the glob [ is not valid";
    QTest::newRow("unclosed glob set") << reluToX + "[condition]\nmodule ~ layer[12.*\n" << "11:10: condition 'module ~ layer[12.*'";
    QTest::newRow("operator arity") << head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x):\n  %r = aten::relu(%x, %x, %x)\n  return (%r)\n"
                                    << "9:8: aten::relu is given 3 argument(s)";
    QTest::newRow("replacement inputs") << head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x, %y):\n  return (%x)\n"
                                        << "8:1: the replacement takes 2 input(s)";
    QTest::newRow("replacement outputs") << head + "[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x):\n  return (%x, %x)\n"
                                         << "8:1: the replacement takes 1 input(s) and returns 2 value(s)";
    QTest::newRow("brackets 100,000 deep") << head + "[pattern]\ngraph(%x):\n  %c : int[] = prim::Constant[value=" + QString(100000, '[') + "]()\n  return (%x)\n"
                                           << "5:";
    QTest::newRow("types 100,000 deep") << head + "[pattern]\ngraph(%x : " + QString(100000, '(') + "Tensor" + QString(100000, ')') + "):\n  return (%x)\n"
                                        << "4:";
  }
  void parseErrorsNameLineAndColumn() {
    QFETCH(QString, text);
    QFETCH(QString, expected);
    QElapsedTimer clock;
    clock.start();
    const auto r = rewrite::parseRule(text, "my.rule");
    QVERIFY(clock.elapsed() < 5000);  // one pass, whatever the text's length or nesting
    QVERIFY(!r.ok());
    QVERIFY2(r.error.toString().contains(expected), qPrintable(r.error.toString() + " lacks " + expected));
    QVERIFY(r.error.toString().startsWith("my.rule:"));
  }

  // Explicit IR-in/IR-out cases for the matcher's bookkeeping.
  void skipReasons_data() {
    QTest::addColumn<QString>("ruleText");
    QTest::addColumn<QString>("ir");
    QTest::addColumn<int>("matches");
    QTest::addColumn<QString>("reason");
    const QString reluPair = "id: relu-relu\n[pattern]\ngraph(%x):\n  %a = aten::relu(%x)\n  %b = aten::relu(%a)\n  return (%b)\n"
                             "[replacement]\ngraph(%x):\n  %b = aten::relu(%x)\n  return (%b)\n";
    QTest::newRow("overlap") << reluPair << "graph(%x : Float(3)):\n  %a : Tensor = aten::relu(%x)\n  %b : Tensor = aten::relu(%a)\n  %c : Tensor = aten::relu(%b)\n  return (%c)\n"
                             << 1 << "overlaps an earlier match";
    QTest::newRow("used outside") << reluPair << "graph(%x : Float(3)):\n  %a : Tensor = aten::relu(%x)\n  %b : Tensor = aten::relu(%a)\n  %c : Tensor = aten::add(%a, %b, %a)\n  return (%c)\n"
                                  << 0 << "also used outside the match, by aten::add";
    const QString dropout = "id: d\n[pattern]\ngraph(%x, %p, %t):\n  %r = aten::dropout(%x, %p, %t)\n  return (%r)\n"
                            "[replacement]\ngraph(%x, %p, %t):\n  return (%x)\n[condition]\n%t == false\n";
    QTest::newRow("condition") << dropout << "graph(%x : Float(3), %t : bool):\n  %p : float = prim::Constant[value=0.5]()\n  %r : Tensor = aten::dropout(%x, %p, %t)\n  return (%r)\n"
                               << 0 << "condition `%t == false` failed: %t is not a constant";
    QTest::newRow("module glob") << "id: m\n[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x):\n  return (%x)\n[condition] module ~ layer*\n"
                                 << "graph(%x : Float(3)):\n  %r : Tensor = aten::relu(%x)\n  return (%r)\n"
                                 << 0 << "condition `module ~ layer*` failed: aten::relu is in module ''";
    QTest::newRow("dtype") << "id: m\n[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x):\n  return (%x)\n[condition]\n%x dtype float64\n"
                           << "graph(%x : Float(3)):\n  %r : Tensor = aten::relu(%x)\n  return (%r)\n"
                           << 0 << "failed: %x is Float";
  }
  void skipReasons() {
    QFETCH(QString, ruleText);
    QFETCH(QString, ir);
    QFETCH(int, matches);
    QFETCH(QString, reason);
    const auto rule = rewrite::parseRule(ruleText, "t.rule");
    QVERIFY2(rule.ok(), qPrintable(rule.error.toString()));
    auto parsed = rewrite::parseIrAt(ir, 1, "ir");
    QVERIFY(parsed.graph);
    const auto out = rewrite::applyRuleOnGraph(rule.rule, parsed.graph, false);
    QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
    parsed.graph->lint();
    QCOMPARE(out.matches, matches);
    QStringList reasons;
    for (const auto& s : out.skipped) reasons << s.reason;
    QVERIFY2(reasons.join('|').contains(reason), qPrintable(reasons.join('|')));
  }

  void foldSkipsTrainingModeWithReason() {
    const auto lib = rewrite::RuleLibrary::load();
    const auto* rule = lib.find("fold-conv-bn");
    QVERIFY(rule);
    auto parsed = rewrite::parseIrAt(rule->tests[1].ir, rule->tests[1].line, rule->source);
    const auto out = rewrite::applyRuleOnGraph(*rule, parsed.graph, false);
    QCOMPARE(out.matches, 0);
    QCOMPARE(out.skipped.size(), 1);
    QCOMPARE(out.skipped[0].reason, QStringLiteral("training-mode batch_norm"));
    auto weights = rewrite::parseIrAt(rule->tests[2].ir, rule->tests[2].line, rule->source);
    const auto out2 = rewrite::applyRuleOnGraph(*rule, weights.graph, false);
    QCOMPARE(out2.skipped.size(), 1);
    QVERIFY(out2.skipped[0].reason.startsWith("non-constant weights"));
  }

  // On a Revision: one undoable revision, unchanged nodes keep their ids, numbers agree.
  void revisionKeepsIdsAndNumbers() {
    auto loaded = io::loadSample("cnn");
    QVERIFY(loaded.ok());
    auto& doc = *loaded.document;
    const auto base = doc.current();
    const auto lib = rewrite::RuleLibrary::load();
    const auto result = rewrite::applySteps(*base, {rewrite::Step::ofRule(*lib.find("fold-conv-bn")),
                                                    rewrite::Step::ofPass("dead-code-elimination")}, doc.ids());
    QVERIFY2(result.ok(), qPrintable(result.error));
    QVERIFY(result.reports[0].matches >= 1);
    QVERIFY(!result.revision->irText().contains("batch_norm"));
    QCOMPARE(result.opsAfter, result.opsBefore - result.reports[0].matches);
    // Every convolution is the same node as before.
    int convs = 0;
    for (auto id : base->nodeIds()) {
      auto* n = base->nodeOf(id);
      if (n->kind() != c10::aten::conv2d) continue;
      ++convs;
      auto* after = result.revision->nodeOf(id);
      QVERIFY(after);
      QCOMPARE(after->kind(), c10::aten::conv2d);
    }
    QVERIFY(convs >= 1);
    graft::core::edit::Session(doc).commitBuilt(result.revision);
    QVERIFY(doc.canUndo());
    doc.undo();
    QVERIFY(doc.current()->irText().contains("batch_norm"));
    doc.redo();
    QCOMPARE(doc.current(), result.revision);
    torch::manual_seed(0);
    const auto x = torch::randn({2, 3, 32, 32});
    auto a = base->runnable().forward({x}).toTensor();
    auto b = result.revision->runnable().forward({x}).toTensor();
    QVERIFY(torch::allclose(a, b, 1e-5, 1e-5));
  }

  void liveCountOnRealModel() {
    auto loaded = io::loadFile(testdata("resnet18.pt"));
    QVERIFY(loaded.ok());
    const auto rule = rewrite::parseRule("id: r\n[pattern]\ngraph(%x):\n  %r = aten::relu_(%x)\n  return (%r)\n"
                                         "[replacement]\ngraph(%x):\n  return (%x)\n[condition] module ~ layer1*\n", "r.rule");
    QVERIFY(rule.ok());
    const auto report = rewrite::previewMatches(*loaded.document->current(), rule.rule);
    QCOMPARE(report.matches, 4);  // layer1.0 and layer1.1 each apply their ReLU twice
    QCOMPARE(report.skipped.size(), 17 - 4);
    QVERIFY(report.skipped[0].node != 0);
  }

  void cliListsRules() {
    const auto r = runCli({"rules", "--json"});
    QCOMPARE(r.exitCode, 0);
    QStringList ids;
    for (const auto& v : r.json().value("rules").toArray()) {
      ids << v.toObject().value("id").toString();
      QCOMPARE(v.toObject().value("source").toString(), QStringLiteral("builtin"));
    }
    for (const auto& id : numericModels().keys()) QVERIFY2(ids.contains(id), qPrintable(id));
    QStringList passes;
    for (const auto& v : r.json().value("passes").toArray()) passes << v.toObject().value("name").toString();
    QCOMPARE(passes, (QStringList{"constant-propagation", "dead-code-elimination", "cse"}));
  }

  void cliListsUserRulesAndProblems() {
    QTemporaryDir dir;
    QFile::copy(sourceFile("tests/data/rules/relu-to-clamp.rule"), dir.filePath("relu-to-clamp.rule"));
    QFile bad(dir.filePath("bad.rule"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("id: bad\n[pattern]\ngraph(%x):\n  %r = aten::relu(%x\n");
    bad.close();
    qputenv("GRAFT_RULES_DIR", dir.path().toUtf8());
    const auto r = runCli({"rules", "--json"});
    qputenv("GRAFT_RULES_DIR", userDir_.path().toUtf8());
    QCOMPARE(r.exitCode, 0);
    QString source;
    for (const auto& v : r.json().value("rules").toArray())
      if (v.toObject().value("id").toString() == "relu-to-clamp") source = v.toObject().value("source").toString();
    QCOMPARE(source, dir.filePath("relu-to-clamp.rule"));
    const auto problems = r.json().value("problems").toArray();
    QCOMPARE(problems.size(), 1);
    QVERIFY2(problems[0].toString().startsWith(dir.filePath("bad.rule") + ":"), qPrintable(problems[0].toString()));
  }

  void cliRefusesBadInput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mustSay");
    const QString model = testdata("bad/good_small.pt");
    QTest::newRow("overwrite input") << QStringList{"rewrite", model, "--rule", "fold-conv-bn", "-o", model} << "refusing to overwrite";
    QTest::newRow("unknown rule") << QStringList{"rewrite", model, "--rule", "no-such-rule", "-o", "/tmp/x.pt"} << "unknown rule 'no-such-rule'";
    QTest::newRow("unknown pass") << QStringList{"rewrite", model, "--pass", "frob", "-o", "/tmp/x.pt"} << "unknown pass 'frob'";
    QTest::newRow("malformed file") << QStringList{"rewrite", model, "--rule", sourceFile("tests/data/bad_rules/unclosed.rule"), "-o", "/tmp/x.pt"}
                                    << "unclosed.rule:7:3: expected ) but found 'return'";
    QTest::newRow("no output") << QStringList{"rewrite", model, "--rule", "fold-conv-bn"} << "missing -o";
  }
  void cliRefusesBadInput() {
    QFETCH(QStringList, args);
    QFETCH(QString, mustSay);
    const auto r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(mustSay), r.err.constData());
    QCOMPARE(r.err.trimmed().count('\n'), 0);
  }

  // Each built-in rule on its small traced model, judged by stock PyTorch.
  void cliRewriteMatchesPyTorch_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("model");
    for (auto it = numericModels().begin(); it != numericModels().end(); ++it)
      if (!it.value().isEmpty()) QTest::newRow(qPrintable(it.key())) << it.key() << it.value();
    QTest::newRow("passes") << "cse" << "activations";
  }
  void cliRewriteMatchesPyTorch() {
    QFETCH(QString, rule);
    QFETCH(QString, model);
    QFile f(testdata("rewrite/shapes.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString shape = shapeArg(QJsonDocument::fromJson(f.readAll()).object().value(model).toArray());
    const QString in = testdata("rewrite/" + model + ".pt");
    const QString out = tmp_.filePath(rule + ".pt");
    const QStringList how = rule == "cse" ? QStringList{"--pass", "constant-propagation", "--pass", "cse", "--pass", "dead-code-elimination"}
                                          : QStringList{"--rule", rule};
    const auto r = runCli(QStringList{"rewrite", in} + how + QStringList{"-o", out, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto applied = r.json().value("applied").toArray();
    if (rule != "cse") {
      QCOMPARE(applied.size(), 1);
      QCOMPARE(applied[0].toObject().value("rule").toString(), rule);
      QVERIFY2(applied[0].toObject().value("matches").toInt() >= 1, r.out.constData());
    }
    const auto py = runPython(sourceFile("tests/python/check_rewrite.py"), {in, out, shape});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
  }

  // The acceptance case: every batch_norm of torchvision ResNets folds away, and stock
  // PyTorch computes the same outputs from the saved file.
  void foldConvBnOnResNets_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("batchNorms");
    QTest::newRow("resnet18") << "resnet18" << 20;
    QTest::newRow("resnet50") << "resnet50" << 53;
  }
  void foldConvBnOnResNets() {
    QFETCH(QString, model);
    QFETCH(int, batchNorms);
    const QString in = testdata(model + ".pt");
    QVERIFY2(QFile::exists(in), "run make_testdata (resnet50 is part of it)");
    const QString out = tmp_.filePath(model + "-folded.pt");
    const auto r = runCli({"rewrite", in, "--rule", "fold-conv-bn", "-o", out, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto step = r.json().value("applied").toArray().at(0).toObject();
    QCOMPARE(step.value("matches").toInt(), batchNorms);
    QCOMPARE(step.value("skipped").toArray().size(), 0);
    QCOMPARE(r.json().value("ops_after").toInt(), r.json().value("ops_before").toInt() - batchNorms);
    const auto py = runPython(sourceFile("tests/python/check_rewrite.py"), {in, out, "1x3x224x224"});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    const auto verdict = QJsonDocument::fromJson(py.out).object();
    QVERIFY(!verdict.value("ops").toObject().contains("aten::batch_norm"));
    QVERIFY(verdict.value("ops").toObject().contains("aten::_convolution"));
  }

  void handAuthoredRuleOnTorchvision() {
    const QString in = testdata("resnet18.pt");
    const QString out = tmp_.filePath("resnet18-clamp.pt");
    const auto r = runCli({"rewrite", in, "--rule", sourceFile("tests/data/rules/relu-to-clamp.rule"), "-o", out, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.json().value("applied").toArray().at(0).toObject().value("matches").toInt(), 17);
    const auto py = runPython(sourceFile("tests/python/check_rewrite.py"), {in, out, "1x3x224x224"});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    const auto ops = QJsonDocument::fromJson(py.out).object().value("ops").toObject();
    QCOMPARE(ops.value("aten::clamp_min").toInt(), 17);
    QVERIFY(!ops.contains("aten::relu_"));
  }

  // Match sites name the nodes each match covers; "apply one" rewrites exactly that match.
  void matchSitesAndApplyOne() {
    auto loaded = io::loadFile(testdata("resnet18.pt"));
    QVERIFY(loaded.ok());
    auto& doc = *loaded.document;
    const auto base = doc.current();
    const auto lib = rewrite::RuleLibrary::load();
    const auto* fold = lib.find("fold-conv-bn");
    const auto report = rewrite::previewMatches(*base, *fold);
    QCOMPARE(report.sites.size(), 20);
    QSet<model::NodeId> anchors;
    for (const auto& site : report.sites) {
      QCOMPARE(site.nodes.size(), 2);
      QCOMPARE(base->nodeOf(site.nodes[0])->kind(), c10::aten::_convolution);
      QCOMPARE(base->nodeOf(site.nodes[1])->kind(), c10::aten::batch_norm);
      QCOMPARE(site.anchor, site.nodes[1]);
      anchors.insert(site.anchor);
    }
    QCOMPARE(anchors.size(), 20);
    // Chosen by its convolution: only that batch_norm folds.
    const auto& chosen = report.sites[3];
    const auto one = rewrite::applySteps(*base, {rewrite::Step::ofRuleAt(*fold, chosen.nodes[0])}, doc.ids());
    QVERIFY2(one.ok(), qPrintable(one.error));
    QCOMPARE(one.reports[0].matches, 1);
    QCOMPARE(one.reports[0].sites.size(), 1);
    QCOMPARE(one.reports[0].sites[0].anchor, chosen.anchor);
    QCOMPARE(one.opsAfter, one.opsBefore - 1);
    QVERIFY(!one.revision->nodeOf(chosen.anchor));
    for (const auto& site : report.sites)
      if (site.anchor != chosen.anchor) QVERIFY(one.revision->nodeOf(site.anchor));
    QCOMPARE(rewrite::previewMatches(*one.revision, *fold).matches, 19);
    torch::manual_seed(0);
    const auto x = torch::randn({1, 3, 64, 64});
    const auto a = base->runnable().forward({x}).toTensor();
    const auto b = one.revision->runnable().forward({x}).toTensor();
    QVERIFY(torch::allclose(a, b, 1e-4, 1e-4));

    // A pattern rule, chosen by its anchor; a node no match covers is refused with a reason.
    auto clamp = rewrite::parseRuleFile(sourceFile("tests/data/rules/relu-to-clamp.rule"));
    QVERIFY(clamp.ok());
    const auto relus = rewrite::previewMatches(*base, clamp.rule);
    QCOMPARE(relus.sites.size(), 17);
    const auto oneRelu = rewrite::applySteps(*base, {rewrite::Step::ofRuleAt(clamp.rule, relus.sites[5].anchor)}, doc.ids());
    QVERIFY2(oneRelu.ok(), qPrintable(oneRelu.error));
    QCOMPARE(oneRelu.reports[0].matches, 1);
    QCOMPARE(rewrite::previewMatches(*oneRelu.revision, clamp.rule).matches, 16);
    const auto none = rewrite::applySteps(*base, {rewrite::Step::ofRuleAt(clamp.rule, chosen.nodes[0])}, doc.ids());
    QVERIFY(!none.ok());
    QVERIFY2(none.error.contains("no match covers node"), qPrintable(none.error));
    const auto pass = rewrite::applySteps(*base, {rewrite::Step{{}, "cse", chosen.nodes[0]}}, doc.ids());
    QVERIFY(!pass.ok());
    QVERIFY2(pass.error.contains("whole graph"), qPrintable(pass.error));
  }

  // "New rule from selection": layer1.0's conv1 -> bn1 -> relu written as a pattern matches the
  // triples with the same settings (3x3, stride 1), not the stem's 7x7 stride-2 one.
  void patternFromSelection() {
    auto loaded = io::loadFile(testdata("resnet18.pt"));
    QVERIFY(loaded.ok());
    const auto rev = loaded.document->current();
    QVector<model::NodeId> picked;
    for (auto id : rev->nodeIds()) {
      auto* n = rev->nodeOf(id);
      const QString path = model::modulePath(n);
      if ((path == "layer1.0.conv1" || path == "layer1.0.bn1") && !n->kind().is_prim()) picked << id;
      if (path == "layer1.0.relu" && picked.size() == 2 && n->kind() == c10::aten::relu_) picked << id;
    }
    QCOMPARE(picked.size(), 3);
    const auto draft = rewrite::patternFromNodes(*rev, picked);
    QVERIFY2(draft.ok(), qPrintable(draft.error));
    QVERIFY(draft.conditions.join('|').contains("== [1, 1]"));
    const QString text = QStringLiteral("id: drafted\n[pattern]\n%1[replacement]\n%1[condition]\n%2\n")
                             .arg(draft.pattern, draft.conditions.join('\n'));
    const auto rule = rewrite::parseRule(text, "drafted.rule");
    QVERIFY2(rule.ok(), qPrintable(rule.error.toString() + "\n" + text));
    const auto report = rewrite::previewMatches(*rev, rule.rule);
    QStringList paths;
    for (const auto& site : report.sites) paths << model::modulePath(rev->nodeOf(site.nodes[0]));
    paths.sort();
    QCOMPARE(paths, (QStringList{"layer1.0.conv1", "layer1.1.conv1", "layer2.1.conv1", "layer3.1.conv1", "layer4.1.conv1"}));
    // Two results used outside cannot be one pattern.
    QVector<model::NodeId> split{picked[0], picked[1]};
    for (auto id : rev->nodeIds())
      if (model::modulePath(rev->nodeOf(id)) == "layer1.1.conv1" && !rev->nodeOf(id)->kind().is_prim()) split << id;
    const auto two = rewrite::patternFromNodes(*rev, split);
    QVERIFY(!two.ok());
    QVERIFY2(two.error.contains("more than one result"), qPrintable(two.error));
  }

  // Headless "apply one match": --dry-run lists the sites with node ids, --at rewrites one of them.
  void cliDryRunAndApplyOne() {
    const QString in = testdata("resnet18.pt");
    const auto dry = runCli({"rewrite", in, "--rule", "fold-conv-bn", "--dry-run", "--json"});
    QVERIFY2(dry.exitCode == 0, dry.err.constData());
    const auto sites = dry.json().value("applied").toArray().at(0).toObject().value("sites").toArray();
    QCOMPARE(sites.size(), 20);
    QCOMPARE(sites[0].toObject().value("where").toString(), QStringLiteral("bn1 (aten::batch_norm)"));
    const QString conv = QString::number(sites[3].toObject().value("nodes").toArray().at(0).toInteger());
    const QString out = tmp_.filePath("resnet18-one-fold.pt");
    const auto one = runCli({"rewrite", in, "--rule", "fold-conv-bn", "--at", conv, "-o", out, "--json"});
    QVERIFY2(one.exitCode == 0, one.err.constData());
    QCOMPARE(one.json().value("applied").toArray().at(0).toObject().value("matches").toInt(), 1);
    const auto py = runPython(sourceFile("tests/python/check_rewrite.py"), {in, out, "1x3x224x224"});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    QCOMPARE(QJsonDocument::fromJson(py.out).object().value("ops").toObject().value("aten::batch_norm").toInt(), 19);
    const auto wrong = runCli({"rewrite", in, "--rule", "fold-conv-bn", "--at", "1", "-o", out});
    QCOMPARE(wrong.exitCode, 2);
    QVERIFY2(wrong.err.contains("no match covers node 1"), wrong.err.constData());
  }

  // The in-place forms match where the rewrite stays correct: resnet18's blocks end in
  // `out += identity; relu(out)`, aten::add_ then aten::relu_, traced and exported alike (8 pairs),
  // and stock PyTorch computes the same outputs from the saved file.
  void fuseAddReluMatchesInPlaceForms_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("traced") << "resnet18.pt";
    QTest::newRow("exported") << "pt2/resnet18.pt2";
  }
  void fuseAddReluMatchesInPlaceForms() {
    QFETCH(QString, model);
    const bool pt2 = model.endsWith(".pt2");
    if (pt2) {
      const auto made = runPython(sourceFile("tests/python/make_programs.py"), {testdata(), "resnet18"});
      QVERIFY2(made.exitCode == 0, made.err.constData());
    }
    const QString in = testdata(model);
    const QString out = tmp_.filePath(pt2 ? "r18-add-relu.pt2" : "r18-add-relu.pt");
    const auto r = runCli({"rewrite", in, "--rule", "fuse-add-relu", "-o", out, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto step = r.json().value("applied").toArray().at(0).toObject();
    QCOMPARE(step.value("matches").toInt(), 8);
    QCOMPARE(r.json().value("ops_after").toInt(), r.json().value("ops_before").toInt() - 8);
    const auto py = pt2 ? runPython(sourceFile("tests/python/check_pt2.py"), {in, out, testdata("pt2/resnet18.inputs.pt")})
                        : runPython(sourceFile("tests/python/check_rewrite.py"), {in, out, "1x3x224x224"});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    const auto verdict = QJsonDocument::fromJson(py.out).object();
    QCOMPARE(verdict.value("max_abs").toDouble(), 0.0);  // _add_relu adds and clamps as add_ then relu_ do
    if (!pt2) {
      const auto ops = verdict.value("ops").toObject();
      QCOMPARE(ops.value("aten::_add_relu").toInt(), 8);
      QVERIFY(!ops.contains("aten::add_"));
    }
  }

  // remove-dropout removes every eval-mode dropout as traced: dropout_, feature_dropout,
  // alpha_dropout, feature_alpha_dropout and feature_dropout_; stock PyTorch agrees bit for bit.
  void removeDropoutMatchesEveryForm() {
    const QString in = testdata("rewrite/dropouts.pt");
    const QString out = tmp_.filePath("dropouts.pt");
    const auto r = runCli({"rewrite", in, "--rule", "remove-dropout", "-o", out, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.json().value("applied").toArray().at(0).toObject().value("matches").toInt(), 5);
    const auto py = runPython(sourceFile("tests/python/check_rewrite.py"), {in, out, "2x4x6x6", "--atol", "0", "--rtol", "0"});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    for (const QString& op : QJsonDocument::fromJson(py.out).object().value("ops").toObject().keys())
      QVERIFY2(!op.contains("dropout"), qPrintable(op));
  }

  // `--pass cse` never merges parameters that happen to hold equal values (a parameter is an
  // identity): two linears with equal weights and zero biases, two fresh LayerNorms and two zero
  // tokens stay apart, every state_dict key is kept, and it removes what stock torch.fx CSEPass
  // removes. On swin_v2_t (aten::index reading a buffer through a constant list) it runs, and
  // stock PyTorch computes the same outputs from the saved file.
  // A rewrite's .pt2 keeps every state_dict key of the original that it did not consume, under
  // the original name: tied weights (emb.weight beside head.weight) and a batch norm's
  // num_batches_tracked, which the graph never reads. What a fold consumes goes, and its new
  // weights take their module's names: fold-conv-bn on resnet18 leaves exactly the keys stock
  // torch.fx's fuse leaves (conv weights and biases, fc). Stock PyTorch loads each file and
  // computes the original's outputs.
  void rewritesKeepUnconsumedState_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QStringList>("rewrite");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<double>("tolerance");
    QTest::newRow("tied, dead-code-elimination") << "state/tied.pt2" << QStringList{"--pass", "dead-code-elimination"}
                                                 << "tied" << 0.0;
    QTest::newRow("tied, cse") << "state/tied.pt2" << QStringList{"--pass", "cse"} << "tied" << 0.0;
    QTest::newRow("resnet18, fold-conv-bn") << "pt2/resnet18.pt2" << QStringList{"--rule", "fold-conv-bn"}
                                            << "resnet18_fused" << 1e-3;
  }
  void rewritesKeepUnconsumedState() {
    QFETCH(QString, model);
    QFETCH(QStringList, rewrite);
    QFETCH(QString, expected);
    QFETCH(double, tolerance);
    const auto made = runPython(sourceFile("tests/python/make_state_models.py"), {testdata()});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    QFile f(testdata("state/keys.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray stockKeys = QJsonDocument::fromJson(f.readAll()).object().value(expected).toArray();
    QVERIFY(!stockKeys.isEmpty());
    const QString in = testdata(model);
    const QString out = tmp_.filePath(QFileInfo(model).baseName() + "-" + rewrite.back() + ".pt2");
    const auto r = runCli(QStringList{"rewrite", in} + rewrite + QStringList{"-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // The same revision saves to the same bytes (a remote host caches models by their SHA-256).
    const QString again = out + ".again.pt2";
    QVERIFY(runCli(QStringList{"rewrite", in} + rewrite + QStringList{"-o", again}).exitCode == 0);
    QFile first(out), second(again);
    QVERIFY(first.open(QIODevice::ReadOnly) && second.open(QIODevice::ReadOnly));
    QVERIFY(first.readAll() == second.readAll());
    const auto keys = runPython(sourceFile("tests/python/state_dict_keys.py"), {out});
    QVERIFY2(keys.exitCode == 0, keys.err.constData());
    QCOMPARE(QJsonDocument::fromJson(keys.out).array(), stockKeys);
    const QString inputs = testdata(model.section('.', 0, 0) + ".inputs.pt");
    const auto py = runPython(sourceFile("tests/python/check_pt2.py"), {in, out, inputs});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    const double maxAbs = QJsonDocument::fromJson(py.out).object().value("max_abs").toDouble(-1);
    QVERIFY2(maxAbs >= 0 && maxAbs <= tolerance, qPrintable(QString::number(maxAbs)));
  }

  void csePassKeepsParameters_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("twins") << "twins";
    QTest::newRow("swin_v2_t") << "swin_v2_t";
  }
  void csePassKeepsParameters() {
    QFETCH(QString, model);
    const auto made = runPython(sourceFile("tests/python/make_cse_models.py"), {testdata()});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    QFile f(testdata("cse/cse.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject stock = QJsonDocument::fromJson(f.readAll()).object().value(model).toObject();
    const QString in = testdata("cse/" + model + ".pt2");
    const QString out = tmp_.filePath(model + "-cse.pt2");
    const auto r = runCli({"rewrite", in, "--pass", "cse", "-o", out, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.json().value("ops_before").toInt(), stock.value("ops_before").toInt());
    if (model == "twins") QCOMPARE(r.json().value("ops_after").toInt(), stock.value("ops_after_stock_cse").toInt());
    const auto py = runPython(sourceFile("tests/python/check_pt2.py"), {in, out, testdata("cse/" + model + ".inputs.pt")});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    QCOMPARE(QJsonDocument::fromJson(py.out).object().value("max_abs").toDouble(), 0.0);
    const auto keys = runPython(sourceFile("tests/python/state_dict_keys.py"), {out});
    QVERIFY2(keys.exitCode == 0, keys.err.constData());
    QCOMPARE(QJsonDocument::fromJson(keys.out).array(), stock.value("state_dict").toArray());
  }

  // fuse-linear-relu computes its output shape with TorchScript list ops (aten::size(x), a
  // slice, a concatenation), which fx has no node for: on a program whose sizes never change
  // the list is one constant, so the rewrite saves as .pt2, and stock PyTorch loads it and
  // computes the same outputs (the torch.fx walkthrough's CustomModel, 2-D; a 3-D MLP).
  void fuseLinearReluSavesAsPt2_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("custom_model") << "custom_model";
    QTest::newRow("silu_mlp") << "silu_mlp";
  }
  void fuseLinearReluSavesAsPt2() {
    QFETCH(QString, model);
    const auto made = runPython(sourceFile("tests/python/make_python_rule_models.py"), {testdata("python_rules")});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    const QString in = testdata("python_rules/" + model + ".pt2");
    const QString out = tmp_.filePath(model + "-fused.pt2");
    const auto r = runCli({"rewrite", in, "--rule", "fuse-linear-relu", "-o", out, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.json().value("applied").toArray().at(0).toObject().value("matches").toInt(), 1);
    const auto py = runPython(sourceFile("tests/python/check_pt2.py"), {in, out, testdata("python_rules/" + model + ".inputs.pt")});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    const auto verdict = QJsonDocument::fromJson(py.out).object();
    QCOMPARE(verdict.value("max_abs").toDouble(), 0.0);
    QCOMPARE(verdict.value("op_histogram").toObject().value("aten._addmm_activation.default").toInt(), 1);
  }

  // The bias-free linear is left alone, with the condition named.
  void fuseLinearReluNeedsBias() {
    const auto r = runCli({"rewrite", testdata("rewrite/linear_relu.pt"), "--rule", "fuse-linear-relu",
                           "-o", tmp_.filePath("lr.pt"), "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto step = r.json().value("applied").toArray().at(0).toObject();
    QCOMPARE(step.value("matches").toInt(), 1);
    const auto skipped = step.value("skipped").toArray();
    QCOMPARE(skipped.size(), 1);
    QVERIFY2(skipped[0].toObject().value("reason").toString().contains("%b != None"),
             qPrintable(QJsonDocument(skipped).toJson()));
  }

 private:
  QTemporaryDir userDir_;
  QTemporaryDir tmp_;

 private Q_SLOTS:
  // A `builtin:` rule honours `module ~ GLOB` conditions as a pattern rule does, and its text as
  // journals record it keeps them (a replayed session rewrites the same matches).
  void builtinRuleConditions() {
    const QString text = QStringLiteral("id: fold-layer1\ntitle: Fold in layer1\nbuiltin: fold-conv-bn\n[condition]\nmodule ~ layer1.*\n");
    const auto parsed = rewrite::parseRule(text, QStringLiteral("layer1.rule"));
    QVERIFY2(parsed.ok(), qPrintable(parsed.error.toString()));
    const auto reread = rewrite::parseRule(rewrite::ruleText(parsed.rule), QStringLiteral("journal"));
    QVERIFY(reread.ok());
    QCOMPARE(reread.rule.conditions.size(), 1);
    auto doc = io::loadFile(graft::test::testdata(QStringLiteral("resnet18.pt"))).document;
    const auto all = rewrite::previewMatches(*doc->current(), *rewrite::RuleLibrary::load().find(QStringLiteral("fold-conv-bn")));
    const auto some = rewrite::previewMatches(*doc->current(), reread.rule);
    QCOMPARE(all.matches, 20);
    QCOMPARE(some.matches, 4);  // layer1.0 and layer1.1, two pairs each
    edit::Session session(*doc);
    const auto r = session.applyRewrite({rewrite::Step::ofRule(reread.rule)});
    QVERIFY2(r.ok(), qPrintable(r.error));
    QCOMPARE(r.reports.front().matches, 4);
    QCOMPARE(int(r.reports.front().skipped.size()), 16);
    // A value condition names pattern values a built-in does not have: refused when read.
    const auto bad = rewrite::parseRule(QStringLiteral("id: x\ntitle: x\nbuiltin: fold-conv-bn\n[condition]\n%b != None\n"), QStringLiteral("bad.rule"));
    QVERIFY(!bad.ok());
    QVERIFY(bad.error.message.contains(QLatin1String("module ~")));
    // An empty pattern is a message about the rule, not a libtorch assertion.
    rewrite::Rule empty;
    empty.id = QStringLiteral("empty");
    empty.pattern = QStringLiteral("graph(%x):\n  return (%x)");
    empty.replacement = empty.pattern;
    QString error;
    rewrite::previewMatches(*doc->current(), empty, &error);
    QVERIFY2(error.contains(QLatin1String("no operation")), qPrintable(error));
  }

  // The shapes of rule the rules fuzzer found not reading back from their own text (conditions of
  // `builtin:` rules, as journals record them), kept in tests/fuzz/regressions/rules: each parses,
  // and its ruleText parses to the same rule, as the harness checks.
  void ruleFuzzerRegressionsReadBack() {
    const QDir dir(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/fuzz/regressions/rules"));
    const auto files = dir.entryList({QStringLiteral("*.rule")}, QDir::Files);
    QVERIFY(files.size() >= 5);
    for (const QString& name : files) {
      QFile f(dir.filePath(name));
      QVERIFY(f.open(QIODevice::ReadOnly));
      const auto parsed = rewrite::parseRule(QString::fromUtf8(f.readAll()), name);
      QVERIFY2(parsed.ok(), qPrintable(name + QStringLiteral(": ") + parsed.error.toString()));
      const auto again = rewrite::parseRule(rewrite::ruleText(parsed.rule), name);
      QVERIFY2(again.ok(), qPrintable(name + QStringLiteral(": ") + again.error.toString()));
      QCOMPARE(again.rule.id, parsed.rule.id);
      QCOMPARE(again.rule.pattern, parsed.rule.pattern);
      QCOMPARE(again.rule.replacement, parsed.rule.replacement);
      QCOMPARE(again.rule.computed, parsed.rule.computed);
      QCOMPARE(again.rule.conditions.size(), parsed.rule.conditions.size());
      QVERIFY2(!parsed.rule.conditions.isEmpty(), qPrintable(name));
    }
  }

  // A rule file with a 10 MB description (10,240 `description:` lines) reads, its description
  // whole (joined once, not appended line by line).
  void longDescriptionsRead() {
    QString text = QStringLiteral("id: long\ntitle: Long\n");
    const QString line = QString(1000, QLatin1Char('y'));
    for (int i = 0; i < 10240; ++i) text += QStringLiteral("description: ") + line + QLatin1Char('\n');
    text += QStringLiteral("[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n[replacement]\ngraph(%x):\n  %r = aten::sigmoid(%x)\n  return (%r)\n");
    const auto parsed = rewrite::parseRule(text, QStringLiteral("long.rule"));
    QVERIFY2(parsed.ok(), qPrintable(parsed.error.toString()));
    QCOMPARE(parsed.rule.description.size(), 10240 * 1001 - 1);
  }
};

QTEST_GUILESS_MAIN(TstRewrite)
#include "tst_rewrite.moc"
