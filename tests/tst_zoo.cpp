// The platform zoo: models people use today (torchvision 0.29, Hugging Face BERT and GPT-2, an
// LSTM), captured by the venv's torch 2.14 (tests/python/make_zoo.py). For each, Graft's op count
// equals PyTorch's, a self-compare is equal, Graft's output equals PyTorch's own for the same file
// and inputs, and where fold-conv-bn matches, its saved file loads in torch.jit.load and matches.
#include "core/io/load.h"
#include "core/run/compare.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "test_support.h"

#include <torch/serialize.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

QString zooFile(const QString& name, const char* suffix) {
  return graft::test::testdata(QStringLiteral("zoo/") + name + QLatin1String(suffix));
}

QJsonObject zooReference(const QString& name) { return graft::test::reference(QStringLiteral("zoo/") + name); }

c10::IValue loadPickle(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  const QByteArray bytes = f.readAll();
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
}

// One row per zoo model; with `flag`, only the models whose reference sets it.
void zooRows(const char* flag = nullptr) {
  QTest::addColumn<QString>("name");
  QFile f(graft::test::testdata(QStringLiteral("zoo/zoo.json")));
  if (!f.open(QIODevice::ReadOnly)) qFatal("the zoo fixture did not run (no zoo/zoo.json)");
  for (const auto& v : QJsonDocument::fromJson(f.readAll()).array())
    if (!flag || zooReference(v.toString()).value(QLatin1String(flag)).toBool())
      QTest::newRow(qPrintable(v.toString())) << v.toString();
}

}  // namespace

class TestZoo : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void opsMatchPyTorch_data() { zooRows(); }
  void opsMatchPyTorch() {
    QFETCH(QString, name);
    const auto ref = zooReference(name);
    const auto r = graft::test::runCli({QStringLiteral("info"), zooFile(name, ".pt"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto info = r.json();
    QCOMPARE(info.value(QStringLiteral("ops")).toInt(), ref.value(QStringLiteral("ops")).toInt());
    QCOMPARE(info.value(QStringLiteral("jit_nodes")).toInt(), ref.value(QStringLiteral("jit_nodes")).toInt());
    QCOMPARE(info.value(QStringLiteral("op_histogram")).toObject(), ref.value(QStringLiteral("op_histogram")).toObject());
  }

  void selfCompareIsEqual_data() { zooRows(); }
  void selfCompareIsEqual() {
    QFETCH(QString, name);
    const QString model = zooFile(name, ".pt");
    const auto r = graft::test::runCli({QStringLiteral("compare"), model, model, QStringLiteral("--input"),
                                        zooFile(name, ".inputs.pt"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData() + r.out.left(2000));
    QCOMPARE(r.json().value(QStringLiteral("equal")).toBool(), true);
    QVERIFY(r.json().value(QStringLiteral("first_divergence")).isNull());
  }

  // The fast path and the node-by-node path both give PyTorch's own output for the same file.
  void outputsMatchPyTorch_data() { zooRows(); }
  void outputsMatchPyTorch() {
    QFETCH(QString, name);
    auto loaded = io::loadFile(zooFile(name, ".pt"));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message() + QLatin1Char('\n') + loaded.error.details));
    const auto inputs = io::parseInputs({zooFile(name, ".inputs.pt")}, 0);
    QVERIFY2(inputs.inputs, qPrintable(inputs.error));
    const std::vector<c10::IValue> expected{loadPickle(zooFile(name, ".outputs.pt"))};
    run::Executor executor(loaded.document->current());
    const run::Tolerance tol{1e-6, 1e-5};
    for (const bool instrumented : {false, true}) {
      run::RunOptions options;
      options.instrumented = instrumented;
      const auto result = executor.run(*inputs.inputs, options);
      QVERIFY2(result.ok, qPrintable(result.error.headline()));
      const auto diffs = run::compareOutputs(result.outputs, expected, tol);
      QVERIFY(!diffs.empty());
      for (size_t i = 0; i < diffs.size(); ++i)
        QVERIFY2(diffs[i].allclose, qPrintable(QStringLiteral("%1 path, output tensor %2: max_abs %3, %4 mismatched %5")
                                                   .arg(instrumented ? QStringLiteral("node-by-node") : QStringLiteral("fast"))
                                                   .arg(i).arg(diffs[i].maxAbs).arg(diffs[i].mismatched).arg(diffs[i].note)));
    }
  }

  // The profiler accounts for every top-level op event, control flow and interpreter-only ops
  // included, and reports the threads it ran with.
  void profileMatchesEveryEvent_data() { zooRows(); }
  void profileMatchesEveryEvent() {
    QFETCH(QString, name);
    const auto r = graft::test::runCli({QStringLiteral("profile"), zooFile(name, ".pt"), QStringLiteral("--input"),
                                        zooFile(name, ".inputs.pt"), QStringLiteral("--runs"), QStringLiteral("2"),
                                        QStringLiteral("--warmup"), QStringLiteral("0"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = r.json();
    QVERIFY2(j.value(QStringLiteral("unmatched_events")).toInt() == 0,
             QJsonDocument(j.value(QStringLiteral("unmatched")).toArray()).toJson().constData());
    QVERIFY(!j.value(QStringLiteral("nodes")).toArray().isEmpty());
    QVERIFY(j.value(QStringLiteral("threads")).toInt() >= 1);
  }

  void foldConvBnSavesWhatPyTorchLoads_data() { zooRows("fold_conv_bn"); }
  void foldConvBnSavesWhatPyTorchLoads() {
    QFETCH(QString, name);
    const auto ref = zooReference(name);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("folded.pt"));
    const auto r = graft::test::runCli({QStringLiteral("rewrite"), zooFile(name, ".pt"), QStringLiteral("--rule"),
                                        QStringLiteral("fold-conv-bn"), QStringLiteral("-o"), out, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = r.json();
    QVERIFY(j.value(QStringLiteral("applied")).toArray().first().toObject().value(QStringLiteral("matches")).toInt() > 0);
    QVERIFY(j.value(QStringLiteral("ops_after")).toInt() < j.value(QStringLiteral("ops_before")).toInt());
    const auto check = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_outputs.py"),
        {out, zooFile(name, ".inputs.pt"), zooFile(name, ".outputs.pt"), QStringLiteral("--rtol"), QStringLiteral("1e-4")});
    QVERIFY2(check.exitCode == 0, check.out + check.err);
    const auto verdict = check.json();
    const int batchNormsBefore = ref.value(QStringLiteral("op_histogram")).toObject().value(QStringLiteral("aten::batch_norm")).toInt();
    QVERIFY(verdict.value(QStringLiteral("ops")).toObject().value(QStringLiteral("aten::batch_norm")).toInt() < batchNormsBefore);
  }

  // Without torchvision's operator library a detection model is refused with what to do.
  void missingTorchvisionIsExplained() {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("GRAFT_TORCHVISION_DIR"), QDir::tempPath() + QStringLiteral("/graft-no-torchvision"));
    p.setProcessEnvironment(env);
    p.start(qEnvironmentVariable("GRAFT_CLI"),
            {QStringLiteral("info"), zooFile(QStringLiteral("fasterrcnn_mobilenet_v3_large_320_fpn"), ".pt")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 2);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains(QStringLiteral("torchvision::nms")), qPrintable(err));
    QVERIFY2(err.contains(QStringLiteral("pip install torchvision==")), qPrintable(err));
  }
};

QTEST_GUILESS_MAIN(TestZoo)
#include "tst_zoo.moc"
