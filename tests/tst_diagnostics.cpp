// Errors as data: every job (load, edit, rewrite, compare, profile, save, layout) reports a bad
// input as a Diagnostic with its job, a message, a hint where there is advice, and the node or
// file:line it is about; and the JSON form round-trips.
#include "core/edit/edit.h"
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/io/save.h"
#include "core/layout/diagram.h"
#include "core/model/diagnostic.h"
#include "core/profile/profile_job.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/rule_parser.h"
#include "core/run/compare.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "test_support.h"

#include <torch/script.h>

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;
using model::Diagnostic;
using model::Severity;

namespace {

std::unique_ptr<model::Document> sample(const QString& name) {
  auto r = io::loadSample(name);
  if (!r.ok()) qFatal("%s", qPrintable(r.error.message()));
  return std::move(r.document);
}

model::NodeId nth(const model::Revision& rev, const char* kind, int n = 0) {
  for (auto id : rev.nodeIds())
    if (rev.nodeOf(id)->kind().toQualString() == std::string(kind) && n-- == 0) return id;
  return model::kNoNode;
}

model::InputSet inputs(const QStringList& specs) {
  auto r = io::parseInputs(specs, 0);
  if (!r.inputs) qFatal("%s", qPrintable(r.error));
  return *r.inputs;
}

}  // namespace

class TstDiagnostics : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void jsonRoundTrips() {
    Diagnostic d = Diagnostic::warning(QStringLiteral("rewrite"), QStringLiteral("skipped"), QStringLiteral("why"), 42);
    d.file = QStringLiteral("a.rule");
    d.line = 3;
    d.column = 7;
    const QJsonObject j = d.toJson();
    for (const char* key : {"severity", "message", "hint", "node", "file", "line", "job"}) QVERIFY2(j.contains(QLatin1String(key)), key);
    QCOMPARE(j.value("severity").toString(), QStringLiteral("warning"));
    QCOMPARE(j.value("node").toInteger(), 42);
    QCOMPARE(Diagnostic::fromJson(j), d);
    QCOMPARE(d.toLine(), QStringLiteral("warning: a.rule:3:7: skipped (why)"));
    // No node is JSON null, and reads back as kNoNode.
    const auto none = Diagnostic::error(QStringLiteral("load"), QStringLiteral("x")).toJson();
    QVERIFY(none.value("node").isNull());
    QCOMPARE(Diagnostic::fromJson(none).node, model::kNoNode);
  }

  void loadNamesTheFileAndAdvises() {
    const QString path = graft::test::testdata(QStringLiteral("bad/state_dict.pt"));
    const auto r = io::loadFile(path);
    QVERIFY(!r.ok());
    const auto ds = r.error.diagnostics(path);
    QCOMPARE(ds.size(), size_t(1));
    QCOMPARE(ds[0].job, QStringLiteral("load"));
    QCOMPARE(ds[0].severity, Severity::Error);
    QCOMPARE(ds[0].message, r.error.headline);
    QVERIFY(ds[0].message.contains(QStringLiteral("state_dict")));
    QVERIFY(ds[0].hint.contains(QStringLiteral("torch.jit.trace")));
    QCOMPARE(ds[0].file, path);
    QVERIFY(io::LoadError{}.diagnostics().empty());
  }

  void editRefusalNamesTheNode() {
    auto doc = sample(QStringLiteral("cnn"));
    const auto conv1 = nth(*doc->current(), "aten::conv2d", 1);
    const auto r = edit::apply(edit::DeleteNode{conv1}, *doc->current(), doc->ids());
    QVERIFY(!r.ok());
    const auto ds = r.diagnostics();
    QCOMPARE(ds.size(), size_t(1));
    QCOMPARE(ds[0].job, QStringLiteral("edit"));
    QCOMPARE(ds[0].node, conv1);
    QVERIFY2(ds[0].message.contains(QStringLiteral("has 3 tensor inputs")), qPrintable(ds[0].message));
  }

  void ruleErrorHasFileLineAndColumn() {
    const QString text = QStringLiteral("id: broken\ntitle: Broken\n[pattern]\ngraph(%x):\n  %r = aten::relu(%x\n  return (%r)\n"
                                        "[replacement]\ngraph(%x):\n  return (%x)\n");
    const auto parsed = rewrite::parseRule(text, QStringLiteral("broken.rule"));
    QVERIFY(!parsed.ok());
    const auto d = parsed.error.diagnostic();
    QCOMPARE(d.job, QStringLiteral("rewrite"));
    QCOMPARE(d.file, QStringLiteral("broken.rule"));
    QVERIFY2(d.line >= 5 && d.column > 0, qPrintable(d.toLine()));
    QVERIFY(d.toLine().startsWith(QStringLiteral("error: broken.rule:%1:").arg(d.line)));
  }

  void rewriteErrorNamesTheNodeAndSkipsAreWarnings() {
    auto doc = sample(QStringLiteral("cnn"));
    const QString relu = QStringLiteral("id: relu-twice\ntitle: t\n[pattern]\ngraph(%x):\n  %r = aten::relu(%x)\n  return (%r)\n"
                                        "[replacement]\ngraph(%x):\n  %r = aten::relu(%x)\n  %s = aten::relu(%r)\n  return (%s)\n");
    const auto parsed = rewrite::parseRule(relu, QStringLiteral("relu.rule"));
    QVERIFY2(parsed.ok(), qPrintable(parsed.error.toString()));
    // A match asked for at a node no match covers: an error about that node, nothing changed.
    const auto conv = nth(*doc->current(), "aten::conv2d");
    const auto r = rewrite::applySteps(*doc->current(), {rewrite::Step::ofRuleAt(parsed.rule, conv)}, doc->ids());
    QVERIFY(!r.ok());
    const auto ds = r.diagnostics();
    QCOMPARE(ds.size(), size_t(1));
    QCOMPARE(ds[0].job, QStringLiteral("rewrite"));
    QCOMPARE(ds[0].node, conv);
    QVERIFY(!ds[0].hint.isEmpty());
    // Asked for one match out of several: the others are reported skipped, as warnings with a node.
    const auto relu0 = nth(*doc->current(), "aten::relu");
    const auto one = rewrite::applySteps(*doc->current(), {rewrite::Step::ofRuleAt(parsed.rule, relu0)}, doc->ids());
    QVERIFY2(one.ok(), qPrintable(one.error));
    const auto skips = one.diagnostics();
    QVERIFY(!skips.empty());
    for (const auto& d : skips) {
      QCOMPARE(d.severity, Severity::Warning);
      QCOMPARE(d.job, QStringLiteral("rewrite"));
      QVERIFY(d.node != model::kNoNode);
      QVERIFY2(d.message.startsWith(QStringLiteral("relu-twice: skipped a match")), qPrintable(d.message));
    }
  }

  void compareAndProfileNameTheFailingNode() {
    auto doc = sample(QStringLiteral("cnn"));
    const auto bad = inputs({QStringLiteral("1x5x32x32")});  // the first conv wants 3 channels
    const auto firstConv = nth(*doc->current(), "aten::conv2d");
    const auto c = run::compareRevisions(doc->current(), doc->current(), bad, {});
    QVERIFY(!c.ok);
    const auto cd = c.diagnostics();
    QCOMPARE(cd.size(), size_t(1));
    QCOMPARE(cd[0].job, QStringLiteral("compare"));
    QCOMPARE(cd[0].node, firstConv);
    profile::ProfileOptions options;
    options.runs = 1;
    options.warmup = 0;
    const auto p = profile::runProfile(doc->current(), bad, options);  // throws inside, never out
    QVERIFY(!p.ok() && !p.inputError);
    QCOMPARE(p.diagnostics.size(), size_t(1));
    QCOMPARE(p.diagnostics[0].job, QStringLiteral("profile"));
    QVERIFY(p.diagnostics[0].message.contains(QStringLiteral("failed to run")));
    QCOMPARE(p.diagnostics[0].node, firstConv);
    options.device = QStringLiteral("tpu:7");
    const auto dev = profile::runProfile(doc->current(), inputs({QStringLiteral("1x3x32x32")}), options);
    QVERIFY(!dev.ok() && dev.inputError);
    QCOMPARE(dev.diagnostics.front().job, QStringLiteral("profile"));
    QVERIFY(!dev.diagnostics.front().hint.isEmpty());
    // Missing inputs are an error of the asking job.
    const auto none = io::parseInputs({QStringLiteral("1xbanana")}, 0);
    QVERIFY(!none.inputs);
    QCOMPARE(none.diagnostics(QStringLiteral("compare")).front().job, QStringLiteral("compare"));
  }

  void saveAndReplayAndLayout() {
    auto doc = sample(QStringLiteral("mlp"));
    const QString target = QStringLiteral("/nonexistent-folder/x.pt");
    const auto s = io::saveRevision(*doc->current(), target);
    QVERIFY(!s.ok);
    const auto sd = s.diagnostics(target);
    QCOMPARE(sd.front().job, QStringLiteral("save"));
    QCOMPARE(sd.front().file, target);
    QVERIFY(!sd.front().hint.isEmpty());
    edit::Session session(*doc);
    const auto r = session.replay(QJsonObject{{"format", "graft-session"}, {"source", QJsonObject{{"sample", "cnn"}}}});
    QVERIFY(!r.ok);
    QCOMPARE(r.diagnostics(QStringLiteral("s.json")).front().job, QStringLiteral("edit"));
    layout::Diagram d;
    QVERIFY(d.diagnostics().empty());
    d.error = QStringLiteral("graphviz gave up");
    QCOMPARE(d.diagnostics().front().job, QStringLiteral("layout"));
  }
};

QTEST_GUILESS_MAIN(TstDiagnostics)
#include "tst_diagnostics.moc"
