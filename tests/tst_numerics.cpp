// The numerics debugger: a revision run at another precision (checked against stock PyTorch's
// model.half()), each node's local error against the error it inherited, the culprit, and
// graft-cli compare --dtype-b.
#include "core/io/load.h"
#include "core/run/compare.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "core/io/input_specs.h"
#include "core/run/precision_relax.h"
#include "core/run/reduce.h"
#include "test_support.h"

#include <QtCore/QJsonArray>
#include <cmath>

#include <torch/script.h>
#include <torch/serialize.h>

#include <cmath>

#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

QString numericsFile(const QString& name) { return graft::test::testdata(QStringLiteral("numerics/") + name); }

std::unique_ptr<model::Document> open(const QString& path) {
  auto r = io::loadFile(path);
  if (!r.ok()) qFatal("%s\n%s", qPrintable(r.error.message()), qPrintable(r.error.details));
  return std::move(r.document);
}

at::Tensor loadTensor(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  const QByteArray bytes = f.readAll();
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toTensor();
}

model::InputSet inputsOf(const QString& model) {
  auto r = io::parseInputs({numericsFile(model + QStringLiteral(".x.pt"))}, 0);
  if (!r.inputs) qFatal("%s", qPrintable(r.error));
  return *r.inputs;
}

run::CompareOptions halfAgainstSaved() {
  run::CompareOptions o;
  o.precisionB.dtype = c10::kHalf;
  o.tol = run::defaultTolerance(o);
  return o;
}

QJsonObject compareJson(const QStringList& extra, int expectedExit) {
  auto r = graft::test::runCli(QStringList{QStringLiteral("compare")} + extra + QStringList{QStringLiteral("--json")});
  if (r.exitCode != expectedExit) qWarning("exit %d: %s", r.exitCode, r.err.constData());
  return r.exitCode == expectedExit ? r.json() : QJsonObject();
}

}  // namespace

class TstNumerics : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  // A run that had to cast an op's mixed dtypes says it is not the model under model.half(),
  // which stock PyTorch stops on; one that only relaxed asserts does not say so.
  void castsSayTheRunIsNotModelHalf() {
    using graft::core::run::relaxedSummary;
    const QString cast = relaxedSummary(QStringLiteral("side B"),
                                        {QStringLiteral("node 3 aten::cat: failed on inputs of float16, float32: run "
                                                        "again with them at float16")});
    QVERIFY2(cast.contains(QLatin1String("not the model under model.half()")), qPrintable(cast));
    const QString asserts =
        relaxedSummary(QStringLiteral("side B"), {QStringLiteral("node 1: float32 assert relaxed for a float16 tensor")});
    QVERIFY2(asserts.contains(QLatin1String("assert")) && !asserts.contains(QLatin1String("not the model")),
             qPrintable(asserts));
  }

  void initTestCase() {
    QVERIFY2(QFile::exists(numericsFile(QStringLiteral("numerics.json"))), "run the make_numerics_models fixture first");
  }

  // B at float16 is stock PyTorch's model.half()(x.half()): weights and inputs cast, nothing else.
  void halfRunMatchesPyTorch_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("accumulate") << QStringLiteral("accumulate");
    QTest::newRow("culprit") << QStringLiteral("culprit");
  }
  void halfRunMatchesPyTorch() {
    QFETCH(QString, model);
    auto doc = open(numericsFile(model + QStringLiteral(".pt")));
    run::Executor ex(doc->current());
    run::RunOptions o;
    o.precision.dtype = c10::kHalf;
    const auto r = ex.run(inputsOf(model), o);
    QVERIFY2(r.ok, qPrintable(r.error.headline()));
    const at::Tensor ours = r.outputs.at(0).toTensor();
    const at::Tensor theirs = loadTensor(numericsFile(model + QStringLiteral(".half.pt")));
    QCOMPARE(ours.scalar_type(), c10::kHalf);
    QVERIFY(at::equal(ours.isnan(), theirs.isnan()));
    const at::Tensor finite = ours.isfinite() & theirs.isfinite();
    QVERIFY(at::equal(ours.masked_select(finite), theirs.masked_select(finite)));
  }

  // The bad node is named by its own error, not by where the difference first shows.
  void localErrorNamesTheCulprit_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("torchscript") << QStringLiteral("culprit.pt");
    QTest::newRow("torch.export") << QStringLiteral("culprit.pt2");
  }
  void localErrorNamesTheCulprit() {
    QFETCH(QString, file);
    auto doc = open(numericsFile(file));
    const auto result = run::compareRevisions(doc->current(), doc->current(), inputsOf(QStringLiteral("culprit")), halfAgainstSaved());
    QVERIFY2(result.ok, qPrintable(result.error));
    QCOMPARE(result.verdict(), run::CompareResult::Verdict::OutputsDiffer);
    QVERIFY(result.localErrors);
    QVERIFY(result.culprit);
    QCOMPARE(result.culprit->op, QStringLiteral("aten::exp"));
    QCOMPARE(result.culprit->modulePath, QStringLiteral("attn"));
    // By the rounding model the first node that differs is the overflowing exp itself; judged
    // elementwise at float16's rtol, earlier nodes already leave the tolerance, and the culprit
    // is still the exp.
    const run::NodeDiff* first = result.firstDivergence();
    QVERIFY(first);
    QCOMPARE(first->nodeB, result.culprit->nodeB);
    run::CompareOptions elementwise = halfAgainstSaved();
    elementwise.tol.elementwise = true;
    const auto strict = run::compareRevisions(doc->current(), doc->current(), inputsOf(QStringLiteral("culprit")), elementwise);
    QVERIFY(strict.firstDivergence() && strict.culprit);
    QVERIFY2(strict.firstDivergence()->nodeB != strict.culprit->nodeB, "the first node past tolerance is not the culprit here");
    QCOMPARE(strict.culprit->nodeB, result.culprit->nodeB);
    // Every row carries its local error; rows other than the attention's stay near rounding noise.
    const double floor = run::culpritNoiseFloor(run::unitRoundoff(c10::kHalf));
    int rows = 0;
    for (const auto& row : result.nodes->nodes) {
      QVERIFY2(row.local, qPrintable(row.opA));
      ++rows;
      if (row.modulePath != QLatin1String("attn") && row.modulePath != QLatin1String("block2.norm") && !row.modulePath.startsWith(QLatin1String("head")))
        QVERIFY2(run::scaledLocalError(row) < floor || row.diff.maxAbs != row.diff.maxAbs,
                 qPrintable(QStringLiteral("%1 at %2: %3").arg(row.opA, row.modulePath).arg(run::scaledLocalError(row))));
    }
    QVERIFY(rows > 15);
  }

  // Error that only accumulates (random weights, no bad node): outputs differ, nobody is blamed.
  void accumulationNamesNoCulprit() {
    auto doc = open(numericsFile(QStringLiteral("accumulate.pt")));
    for (auto dtype : {c10::kHalf, c10::kBFloat16}) {
      run::CompareOptions o;
      o.precisionB.dtype = dtype;
      o.tol = {1e-6, 1e-6, true};  // tight, elementwise: the outputs differ, so a culprit would be looked for
      const auto result = run::compareRevisions(doc->current(), doc->current(), inputsOf(QStringLiteral("accumulate")), o);
      QVERIFY2(result.ok, qPrintable(result.error));
      QCOMPARE(result.verdict(), run::CompareResult::Verdict::OutputsDiffer);
      QVERIFY(result.localErrors);
      QVERIFY2(!result.culprit, qPrintable(result.culprit ? result.culprit->op + QLatin1Char(' ') + result.culprit->modulePath : QString()));
      double worst = 0;
      for (const auto& row : result.nodes->nodes) worst = std::max(worst, run::scaledLocalError(row));
      QVERIFY(worst > 0);  // the local runs did run at the lower precision
    }
  }

  // Autocast keeps exp and sum in float32: the overflow is gone, and with it the culprit.
  void autocastKeepsReductionsInFloat32() {
    auto doc = open(numericsFile(QStringLiteral("culprit.pt")));
    auto o = halfAgainstSaved();
    o.precisionB.autocast = true;
    const auto result = run::compareRevisions(doc->current(), doc->current(), inputsOf(QStringLiteral("culprit")), o);
    QVERIFY2(result.ok, qPrintable(result.error));
    QVERIFY(!result.culprit);
    for (const auto& d : result.outputs) QVERIFY(std::isfinite(d.maxAbs));
  }

  // A float64 reference against the saved float32 model: equal within the default tolerance.
  void float64Reference() {
    auto doc = open(numericsFile(QStringLiteral("culprit.pt")));
    run::CompareOptions o;
    o.precisionA.dtype = c10::kDouble;
    o.perNode = true;
    const auto result = run::compareRevisions(doc->current(), doc->current(), inputsOf(QStringLiteral("culprit")), o);
    QVERIFY2(result.ok, qPrintable(result.error));
    QVERIFY(result.equal);
    QVERIFY(result.localErrors);
    QVERIFY(!result.culprit);
  }

  void cliDtypeCompare() {
    const QString x = numericsFile(QStringLiteral("culprit.x.pt"));
    const auto j = compareJson({numericsFile(QStringLiteral("culprit.pt2")), QStringLiteral("--input"), x,
                                QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("--per-node")}, 1);
    QCOMPARE(j.value(QStringLiteral("rtol")).toDouble(), 1e-3);  // torch.testing's float16 default
    const auto culprit = j.value(QStringLiteral("culprit")).toObject();
    QCOMPARE(culprit.value(QStringLiteral("op")).toString(), QStringLiteral("aten::exp"));
    QCOMPARE(culprit.value(QStringLiteral("module_path")).toString(), QStringLiteral("attn"));
    QVERIFY(culprit.contains(QStringLiteral("node")));
    QVERIFY(culprit.value(QStringLiteral("local_max_abs")).isNull());  // infinite: an overflow
    const auto nodes = j.value(QStringLiteral("nodes")).toArray();
    QVERIFY(!nodes.isEmpty());
    for (const auto& n : nodes) QVERIFY(n.toObject().contains(QStringLiteral("local_max_abs")));
    const auto acc = compareJson({numericsFile(QStringLiteral("accumulate.pt")), QStringLiteral("--input"),
                                  numericsFile(QStringLiteral("accumulate.x.pt")), QStringLiteral("--dtype-b"),
                                  QStringLiteral("bfloat16"), QStringLiteral("--atol"), QStringLiteral("1e-6"),
                                  QStringLiteral("--rtol"), QStringLiteral("1e-6")}, 1);
    QVERIFY(acc.contains(QStringLiteral("culprit")));
    QVERIFY(acc.value(QStringLiteral("culprit")).isNull());
    auto bad = graft::test::runCli({QStringLiteral("compare"), numericsFile(QStringLiteral("accumulate.pt")),
                                    QStringLiteral("--input"), QStringLiteral("4x64"), QStringLiteral("--dtype-b"), QStringLiteral("int8")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("not a floating dtype"), bad.err.constData());
  }

  // reduce cuts the failure down to the overflowing exp, saves it as a .pt2 that stock PyTorch
  // loads and that fails at float16 on its own sample inputs, in Graft and in PyTorch.
  void reduceSavesAReproducer_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("torchscript") << QStringLiteral("culprit.pt");
    QTest::newRow("torch.export") << QStringLiteral("culprit.pt2");
  }
  void reduceSavesAReproducer() {
    QFETCH(QString, file);
    QTemporaryDir dir;
    const QString repro = dir.filePath(QStringLiteral("repro.pt2"));
    auto r = graft::test::runCli({QStringLiteral("reduce"), numericsFile(file), numericsFile(file), QStringLiteral("--input"),
                                  numericsFile(QStringLiteral("culprit.x.pt")), QStringLiteral("--dtype-b"), QStringLiteral("float16"),
                                  QStringLiteral("-o"), repro, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = r.json();
    const int nodes = j.value(QStringLiteral("nodes")).toInt();
    QVERIFY2(nodes >= 1 && nodes <= 3, r.out.constData());
    QCOMPARE(j.value(QStringLiteral("failing")).toObject().value(QStringLiteral("op")).toString(), QStringLiteral("aten::exp"));
    QCOMPARE(j.value(QStringLiteral("failing")).toObject().value(QStringLiteral("module_path")).toString(), QStringLiteral("attn"));
    // Two full runs, then at most log2(N) + 1 bisection runs and one per node kept or removed.
    const int candidates = j.value(QStringLiteral("candidates")).toInt();
    QVERIFY(candidates > 5);
    QVERIFY2(j.value(QStringLiteral("runs")).toInt() <= 2 + int(std::ceil(std::log2(candidates + 1))) + 1 + candidates, r.out.constData());
    QCOMPARE(j.value(QStringLiteral("output")).toString(), repro);

    // Graft reproduces it with no --input: the sample inputs are the boundary values.
    const auto again = compareJson({repro, repro, QStringLiteral("--dtype-b"), QStringLiteral("float16")}, 1);
    QCOMPARE(again.value(QStringLiteral("culprit")).toObject().value(QStringLiteral("op")).toString(), QStringLiteral("aten::exp"));
    // And so does stock PyTorch.
    const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_repro.py"), {repro});
    QVERIFY2(py.exitCode == 0, py.err.constData());
    const auto stock = QJsonDocument::fromJson(py.out).object();
    QCOMPARE(stock.value(QStringLiteral("nodes")).toInt(), nodes);
    QVERIFY(stock.value(QStringLiteral("finite_float32")).toBool());
    QVERIFY(!stock.value(QStringLiteral("finite_float16")).toBool());
  }

  void reduceRefusesWhatItCannotReduce() {
    QTemporaryDir dir;
    const QString repro = dir.filePath(QStringLiteral("repro.pt2"));
    const QString acc = numericsFile(QStringLiteral("accumulate.pt"));
    // Error that only accumulates: no node fails beyond rounding noise, exit 1, nothing written.
    auto none = graft::test::runCli({QStringLiteral("reduce"), acc, QStringLiteral("--input"), numericsFile(QStringLiteral("accumulate.x.pt")),
                                     QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("-o"), repro});
    QCOMPARE(none.exitCode, 1);
    QVERIFY2(none.err.contains("no failure to reduce"), none.err.constData());
    QVERIFY(!QFile::exists(repro));
    // Both sides the same: nothing can fail.
    auto same = graft::test::runCli({QStringLiteral("reduce"), acc, QStringLiteral("--input"), QStringLiteral("4x64"), QStringLiteral("-o"), repro});
    QCOMPARE(same.exitCode, 2);
    QVERIFY2(same.err.contains("--dtype-b"), same.err.constData());
    // Two different models.
    auto two = graft::test::runCli({QStringLiteral("reduce"), acc, numericsFile(QStringLiteral("culprit.pt")), QStringLiteral("--dtype-b"),
                                    QStringLiteral("float16"), QStringLiteral("-o"), repro});
    QCOMPARE(two.exitCode, 2);
    QVERIFY2(two.err.contains("differ"), two.err.constData());
    auto noOut = graft::test::runCli({QStringLiteral("reduce"), acc, QStringLiteral("--dtype-b"), QStringLiteral("float16")});
    QCOMPARE(noOut.exitCode, 2);
    QVERIFY2(noOut.err.contains("-o"), noOut.err.constData());
  }

  // A deep chain of residual blocks, each reading its input twice (x * 0.5 + relu(x) * 0.5),
  // overflowing at the exp after them: every trial cut removes the blocks before its window, and
  // the inferred provenance of such a cut once doubled per removed block (2^48 entries here).
  void reduceCutsBehindDeepResidualChains() {
    QTemporaryDir dir;
    QString body = QStringLiteral("def forward(self, x):\n");
    for (int i = 0; i < 48; ++i) body += QStringLiteral("    x = x * 0.5 + torch.relu(x) * 0.5\n");
    body += QStringLiteral("    return torch.exp(x * 16.0)\n");
    torch::jit::Module m("DeepResidual");
    m.define(body.toStdString());
    const QString path = dir.filePath(QStringLiteral("deep.pt"));
    m.save(path.toStdString());
    auto doc = open(path);
    const model::InputSet inputs{{torch::rand({1, 64}) + 0.5}, {}};
    const auto r = run::reduceFailure(doc->current(), inputs, halfAgainstSaved(), doc->ids());
    QVERIFY2(r.ok, qPrintable(r.error));
    QCOMPARE(doc->current()->kindOf(r.failing), QStringLiteral("aten::exp"));
    QCOMPARE(r.nodes.size(), size_t(1));
    QVERIFY(r.candidateNodes > 4 * 48);
  }

  // Precision bisection keeps the overflowing softmax in float32, and the saved model passes at
  // float16 in Graft and in stock PyTorch (model.half() on the saved program).
  void precisionBisectionKeepsTheCulprit_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("torchscript") << QStringLiteral("culprit.pt");
    QTest::newRow("torch.export") << QStringLiteral("culprit.pt2");
  }
  void precisionBisectionKeepsTheCulprit() {
    QFETCH(QString, file);
    QTemporaryDir dir;
    const QString mixed = dir.filePath(QStringLiteral("mixed.") + QFileInfo(file).suffix());
    const QString x = numericsFile(QStringLiteral("culprit.x.pt"));
    const QStringList tolerance{QStringLiteral("--atol"), QStringLiteral("1e-2"), QStringLiteral("--rtol"), QStringLiteral("1e-2")};
    auto r = graft::test::runCli(QStringList{QStringLiteral("precision"), numericsFile(file), QStringLiteral("--input"), x,
                                             QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("-o"), mixed,
                                             QStringLiteral("--json")} + tolerance);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // The save is checked by a run on the inputs the search used, not reported as unchecked.
    QVERIFY2(!r.err.contains("without a run to check it"), r.err.constData());
    const auto j = r.json();
    QCOMPARE(j.value(QStringLiteral("passes_already")).toBool(), false);
    QVERIFY(j.value(QStringLiteral("before")).toObject().value(QStringLiteral("max_abs")).isNull());  // NaN: the overflow
    QStringList kept;
    for (const auto& n : j.value(QStringLiteral("nodes")).toArray()) {
      QCOMPARE(n.toObject().value(QStringLiteral("module_path")).toString(), QStringLiteral("attn"));
      kept << n.toObject().value(QStringLiteral("op")).toString();
    }
    QVERIFY2(kept.contains(QStringLiteral("aten::exp")), qPrintable(kept.join(QLatin1Char(' '))));
    QVERIFY(kept.size() <= 4);
    QCOMPARE(j.value(QStringLiteral("output")).toString(), mixed);
    QVERIFY(j.value(QStringLiteral("after")).toObject().value(QStringLiteral("allclose")).toBool());

    // Reloaded, the saved model passes at float16 with no casts added by the run.
    const auto again = compareJson(QStringList{mixed, QStringLiteral("--input"), x, QStringLiteral("--dtype-b"), QStringLiteral("float16")} + tolerance, 0);
    QCOMPARE(again.value(QStringLiteral("verdict")).toString(), QStringLiteral("equal"));
    // In stock PyTorch the file is a float16 program (a frozen .pt's constants too): it runs as it
    // is, after .half() and on float32 inputs, to what Graft said, where the original under
    // .half() overflows.
    const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_mixed.py"),
                                           {mixed, numericsFile(file), x, QStringLiteral("float16")});
    QVERIFY2(py.exitCode == 0, py.err.constData());
    const auto stock = QJsonDocument::fromJson(py.out).object();
    QVERIFY2(!stock.value(QStringLiteral("finite_plain")).toBool(), py.out.constData());
    QVERIFY2(stock.value(QStringLiteral("finite")).toBool(), py.out.constData());
    QVERIFY2(stock.value(QStringLiteral("finite_after_convert")).toBool(), py.out.constData());
    QCOMPARE(stock.value(QStringLiteral("output_dtype")).toString(), QStringLiteral("float16"));
    QCOMPARE(stock.value(QStringLiteral("state_dtypes")).toArray(), QJsonArray{QStringLiteral("float16")});
    const double graftAfter = j.value(QStringLiteral("after")).toObject().value(QStringLiteral("max_abs")).toDouble();
    for (const char* key : {"max_abs", "max_abs_after_convert", "max_abs_given_float32"})
      QVERIFY2(std::abs(stock.value(QLatin1String(key)).toDouble() - graftAfter) <= 1e-6, py.out.constData());
  }

  // --dtype-b float16 answers "the model under model.half()" by default: on a BartModel, whose
  // `.to(device)` the capture recorded as a float32 cast, Graft's error is stock's eager .half()
  // error; --casts as-written answers "this program's ops at float16", where that cast keeps the
  // residual stream in float32 (a smaller error). Each run says which question it answered.
  void halfMeansTheModelUnderHalf() {
    const QString dir = halfModels();
    QVERIFY(!dir.isEmpty());
    const auto facts = readJson(dir + QStringLiteral("/facts.json")).value(QStringLiteral("bart")).toObject();
    const QStringList common{dir + QStringLiteral("/bart.pt2"), QStringLiteral("--input"), dir + QStringLiteral("/bart.ids.pt"),
                             QStringLiteral("--input"), dir + QStringLiteral("/bart.mask.pt"), QStringLiteral("--dtype-a"),
                             QStringLiteral("float64"), QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("--json")};
    auto follow = graft::test::runCli(QStringList{QStringLiteral("compare")} + common);
    QVERIFY2(follow.exitCode == 0, follow.err.constData());
    QVERIFY2(follow.err.contains("as model.half() would"), follow.err.constData());
    QCOMPARE(follow.json().value(QStringLiteral("question_b")).toString(), QStringLiteral("the model under model.half()"));
    const auto out = follow.json().value(QStringLiteral("outputs")).toArray().at(0).toObject();
    const double stockMaxAbs = facts.value(QStringLiteral("half_max_abs")).toDouble();
    QVERIFY2(std::abs(out.value(QStringLiteral("max_abs")).toDouble() - stockMaxAbs) <= 0.05 * stockMaxAbs, follow.out.constData());
    QVERIFY2(std::abs(out.value(QStringLiteral("sqnr_db")).toDouble() - facts.value(QStringLiteral("half_sqnr_db")).toDouble()) < 0.5,
             follow.out.constData());

    auto written = graft::test::runCli(QStringList{QStringLiteral("compare")} + common +
                                       QStringList{QStringLiteral("--casts"), QStringLiteral("as-written")});
    QVERIFY2(written.exitCode == 0, written.err.constData());
    QVERIFY2(!written.err.contains("as model.half() would"), written.err.constData());
    QCOMPARE(written.json().value(QStringLiteral("question_b")).toString(),
             QStringLiteral("this program's ops at float16, its float32 casts as written"));
    const auto asWritten = written.json().value(QStringLiteral("outputs")).toArray().at(0).toObject();
    QVERIFY2(asWritten.value(QStringLiteral("max_abs")).toDouble() < 0.5 * stockMaxAbs, written.out.constData());

    auto bad = graft::test::runCli(QStringList{QStringLiteral("compare")} + common +
                                   QStringList{QStringLiteral("--casts"), QStringLiteral("sometimes")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--casts needs follow or as-written"), bad.err.constData());
  }

  // precision on a Qwen2 that overflows at float16 (a program full of dtype asserts and recorded
  // float32 casts) writes what stock PyTorch runs the way the precision was asked, to the error
  // Graft reported, keeping every state_dict key: for .half(), a float16 .pt2 that runs as it is and
  // after .half(); for autocast, the float32 program with the kept nodes in float64, which
  // torch.autocast leaves alone.
  void precisionOutputRunsInStock_data() {
    QTest::addColumn<bool>("autocast");
    QTest::newRow("half") << false;
    QTest::newRow("autocast") << true;
  }
  void precisionOutputRunsInStock() {
    QFETCH(bool, autocast);
    const QString dir = halfModels();
    QVERIFY(!dir.isEmpty());
    const auto facts = readJson(dir + QStringLiteral("/facts.json")).value(QStringLiteral("qwen2")).toObject();
    QCOMPARE(facts.value(QStringLiteral("half_finite")).toInt(), 0);  // stock .half() overflows everywhere
    QTemporaryDir out;
    const QString mixed = out.filePath(QStringLiteral("mixed.pt2"));
    const QString ids = dir + QStringLiteral("/qwen2.ids.pt");
    QStringList args{QStringLiteral("precision"), dir + QStringLiteral("/qwen2.pt2"), QStringLiteral("--input"), ids,
                     QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("-o"), mixed,
                     QStringLiteral("--json")};
    if (autocast) args << QStringLiteral("--autocast");
    auto r = graft::test::runCli(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = r.json();
    QStringList kept;
    for (const auto& n : j.value(QStringLiteral("nodes")).toArray())
      kept << n.toObject().value(QStringLiteral("module_path")).toString();
    QVERIFY2(kept.contains(QStringLiteral("model.layers.1.mlp")), qPrintable(kept.join(QLatin1Char(' '))));
    QCOMPARE(j.value(QStringLiteral("kept_at")).toString(), autocast ? QStringLiteral("float64") : QStringLiteral("float32"));
    QStringList check{mixed, dir + QStringLiteral("/qwen2.pt2"), ids, QStringLiteral("float16")};
    if (autocast) check << QStringLiteral("autocast");
    const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_mixed.py"), check);
    QVERIFY2(py.exitCode == 0, py.err.constData());
    const auto stock = QJsonDocument::fromJson(py.out).object();
    QVERIFY2(!stock.value(QStringLiteral("finite_plain")).toBool(), py.out.constData());
    QVERIFY2(stock.value(QStringLiteral("finite")).toBool(), py.out.constData());
    const double graftAfter = j.value(QStringLiteral("after")).toObject().value(QStringLiteral("max_abs")).toDouble();
    if (autocast) {
      // Graft's autocast is a stand-in for torch.autocast's op lists: the same size of error, not the same bits.
      QCOMPARE(stock.value(QStringLiteral("state_dtypes")).toArray(), QJsonArray{QStringLiteral("float32")});
      QVERIFY2(stock.value(QStringLiteral("max_abs")).toDouble() <= 2 * graftAfter, py.out.constData());
    } else {
      QVERIFY2(stock.value(QStringLiteral("finite_after_convert")).toBool(), py.out.constData());
      QCOMPARE(stock.value(QStringLiteral("state_dtypes")).toArray(), QJsonArray{QStringLiteral("float16")});
      QVERIFY2(std::abs(stock.value(QStringLiteral("max_abs")).toDouble() - graftAfter) <= 1e-6, py.out.constData());
      QVERIFY2(std::abs(stock.value(QStringLiteral("max_abs_after_convert")).toDouble() - graftAfter) <= 1e-6,
               py.out.constData());
    }
    const QString keysScript = qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/state_dict_keys.py");
    const auto keys = graft::test::runPython(keysScript, {mixed});
    const auto original = graft::test::runPython(keysScript, {dir + QStringLiteral("/qwen2.pt2")});
    QVERIFY2(keys.exitCode == 0 && original.exitCode == 0, keys.err.constData());
    QCOMPARE(keys.out, original.out);
  }

  // When the outputs themselves go beyond float16's range, precision says that is the cause and
  // names the module where the values first leave it (stock forward hooks agree), not "the
  // difference does not come from the nodes' precision".
  void precisionNamesFloat16sRange() {
    const QString dir = halfModels();
    QVERIFY(!dir.isEmpty());
    const auto facts = readJson(dir + QStringLiteral("/facts.json")).value(QStringLiteral("range")).toObject();
    QVERIFY(facts.value(QStringLiteral("outputs_max_abs")).toDouble() > 65504);
    auto r = graft::test::runCli({QStringLiteral("precision"), dir + QStringLiteral("/range.pt"), QStringLiteral("--input"),
                                  dir + QStringLiteral("/range.x.pt"), QStringLiteral("--dtype-b"), QStringLiteral("float16"),
                                  QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 1);  // an answer, "no"
    const QString reason = r.json().value(QStringLiteral("reason")).toString();
    QVERIFY2(reason.startsWith(QLatin1String("float16's range is the cause")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("aten::linear (%1)").arg(facts.value(QStringLiteral("first_beyond")).toString())),
             qPrintable(reason));
    QVERIFY2(reason.contains(QString::number(facts.value(QStringLiteral("outputs_max_abs")).toDouble(), 'g', 3)), qPrintable(reason));
  }

 private:
  // The Hugging Face models of tests/python/make_half_models.py, made once.
  QString halfModels() {
    if (halfModelsMade_) return halfModels_.path();
    const auto r = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_half_models.py"),
                                          {halfModels_.path()});
    if (r.exitCode != 0) {
      qWarning("make_half_models.py: %s", r.err.constData());
      return {};
    }
    halfModelsMade_ = true;
    return halfModels_.path();
  }
  static QJsonObject readJson(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
  }
  QTemporaryDir halfModels_;
  bool halfModelsMade_ = false;
};

QTEST_GUILESS_MAIN(TstNumerics)
#include "tst_numerics.moc"
