// Quantization error per module: a quantized model against its float twin, paired by module path,
// checked against stock PyTorch's forward hooks (tests/python/make_quant_pairs.py) for eager
// post-training quantization (torchvision's MobileNetV2) and quantize_fx (a small CNN).
#include "core/io/load.h"
#include "core/io/input_set.h"
#include "core/io/input_specs.h"
#include "core/run/module_error.h"
#include "test_support.h"

#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QSet>
#include <QtTest/QtTest>
#include <cmath>

using namespace graft::core;

namespace {

QString quantDir() { return graft::test::testdata(QStringLiteral("quant")); }
QString quantFile(const QString& name) { return quantDir() + QLatin1Char('/') + name; }

std::unique_ptr<model::Document> open(const QString& path) {
  auto r = io::loadFile(path);
  if (!r.ok()) qFatal("%s\n%s", qPrintable(r.error.message()), qPrintable(r.error.details));
  return std::move(r.document);
}

model::InputSet inputsOf(const QString& pair) {
  auto r = io::parseInputs({quantFile(pair + QStringLiteral(".x.pt"))}, 0);
  if (!r.inputs) qFatal("%s", qPrintable(r.error));
  return *r.inputs;
}

QJsonObject referenceOf(const QString& pair) {
  QFile f(quantFile(pair + QStringLiteral(".ref.json")));
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(f.fileName()));
  return QJsonDocument::fromJson(f.readAll()).object();
}

run::ModuleErrorResult errorsOf(const QString& pair, const QString& twin = QStringLiteral(".float.pt")) {
  auto q = open(quantFile(pair + QStringLiteral(".quantized.pt")));
  auto f = open(quantFile(pair + twin));
  return run::moduleErrors(q->current(), f->current(), inputsOf(pair));
}

// Module classes that leave no op node in a traced graph: their output is their input (or, for
// QuantStub, the input before it is quantized), so no node of theirs can be paired.
const QSet<QString> kNoNodeClasses{QStringLiteral("Identity"), QStringLiteral("QuantStub"),
                                   QStringLiteral("DeQuantStub"), QStringLiteral("Dropout")};

}  // namespace

class TstQuantError : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    if (!QFile::exists(quantFile(QStringLiteral("fx_cnn.quantized.pt")))) {
      const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_quant_pairs.py"), {quantDir()});
      QVERIFY2(py.exitCode == 0, py.err.constData());
    }
  }

  // Each module's SQNR and cosine as PyTorch's hooks measure them, and every hooked module paired
  // unless one side's module leaves no op node in its graph.
  void matchesPyTorchHooks_data() {
    QTest::addColumn<QString>("pair");
    QTest::addColumn<int>("leastPaired");
    QTest::newRow("eager mobilenet_v2") << QStringLiteral("mobilenet_v2") << 120;
    QTest::newRow("fx cnn") << QStringLiteral("fx_cnn") << 4;
  }
  void matchesPyTorchHooks() {
    QFETCH(QString, pair);
    QFETCH(int, leastPaired);
    const auto result = errorsOf(pair);
    QVERIFY2(result.ok, qPrintable(result.error));
    const QJsonObject ref = referenceOf(pair);
    const QJsonObject modules = ref[QStringLiteral("modules")].toObject();
    const QJsonObject types = ref[QStringLiteral("types")].toObject();
    QSet<QString> paired;
    double largestDeviation = 0;
    for (const auto& m : result.modules) {
      paired.insert(m.modulePath);
      QVERIFY2(m.diff.note.isEmpty(), qPrintable(m.modulePath + QStringLiteral(": ") + m.diff.note));
      if (!modules.contains(m.modulePath)) continue;  // a module PyTorch's hooks did not see
      const QJsonObject r = modules[m.modulePath].toObject();
      const QString what = m.modulePath + QStringLiteral(": graft %1 dB, PyTorch %2").arg(m.diff.sqnrDb).arg(r[QStringLiteral("sqnr_db")].toDouble());
      QCOMPARE(m.diff.numel, qint64(r[QStringLiteral("numel")].toDouble()));
      if (r[QStringLiteral("sqnr_db")].isNull()) QVERIFY2(std::isinf(m.diff.sqnrDb), qPrintable(what));
      else QVERIFY2(std::abs(m.diff.sqnrDb - r[QStringLiteral("sqnr_db")].toDouble()) < 0.01, qPrintable(what));
      if (!r[QStringLiteral("sqnr_db")].isNull())
        largestDeviation = std::max(largestDeviation, std::abs(m.diff.sqnrDb - r[QStringLiteral("sqnr_db")].toDouble()));
      QVERIFY2(std::abs(m.diff.cosine - r[QStringLiteral("cosine")].toDouble()) < 1e-6, qPrintable(what));
    }
    QStringList unpaired;
    for (auto it = modules.begin(); it != modules.end(); ++it) {
      if (paired.contains(it.key())) continue;
      const QJsonObject t = types[it.key()].toObject();
      const bool noNode = kNoNodeClasses.contains(t[QStringLiteral("quantized")].toString()) ||
                          kNoNodeClasses.contains(t[QStringLiteral("float")].toString());
      QVERIFY2(noNode, qPrintable(it.key() + QStringLiteral(" (") + t[QStringLiteral("quantized")].toString() +
                                  QStringLiteral(" / ") + t[QStringLiteral("float")].toString() + QStringLiteral(") is not paired")));
      unpaired << it.key();
    }
    QVERIFY2(paired.size() >= leastPaired, qPrintable(QString::number(paired.size())));
    // The worst module is the one PyTorch finds worst.
    QString refWorst;
    double refLowest = INFINITY;
    for (auto it = modules.begin(); it != modules.end(); ++it)
      if (paired.contains(it.key()) && !it.value()[QStringLiteral("sqnr_db")].isNull() && it.value()[QStringLiteral("sqnr_db")].toDouble() < refLowest)
        refLowest = it.value()[QStringLiteral("sqnr_db")].toDouble(), refWorst = it.key();
    QVERIFY(result.worst());
    QVERIFY2(std::abs(result.worst()->diff.sqnrDb - refLowest) < 0.01, qPrintable(result.worst()->modulePath + QStringLiteral(" vs ") + refWorst));
    qInfo("%s: %d modules paired, worst %s at %.4f dB (PyTorch: %s at %.4f dB), largest SQNR deviation %.2g dB; "
          "not paired (no op node on one side): %s",
          qPrintable(pair), int(paired.size()), qPrintable(result.worst()->modulePath), result.worst()->diff.sqnrDb,
          qPrintable(refWorst), refLowest, largestDeviation, qPrintable(unpaired.join(QStringLiteral(", "))));
  }

  // A module's output is what leaves it: a fused block and its enclosing modules take the same
  // node; submodules fused away on the quantized side, and stubs, are listed on one side.
  void modulesTakeWhatLeavesThem() {
    auto q = open(quantFile(QStringLiteral("mobilenet_v2.quantized.pt")));
    auto f = open(quantFile(QStringLiteral("mobilenet_v2.float.pt")));
    const auto result = run::moduleErrors(q->current(), f->current(), inputsOf(QStringLiteral("mobilenet_v2")));
    QVERIFY2(result.ok, qPrintable(result.error));
    auto row = [&](const QString& path) -> const run::ModuleError* {
      for (const auto& m : result.modules)
        if (m.modulePath == path) return &m;
      return nullptr;
    };
    // Conv+ReLU fused into one quantized op; on the float side the ReLU submodule hands it on.
    const auto* fused = row(QStringLiteral("features.0.0"));
    QVERIFY(fused);
    QCOMPARE(fused->op, QStringLiteral("quantized::conv2d_relu"));
    QCOMPARE(fused->floatOp, QStringLiteral("aten::relu"));
    QCOMPARE(row(QStringLiteral("features.0"))->node, fused->node);
    // A residual block hands on its add, not the conv before it.
    QCOMPARE(row(QStringLiteral("features.3"))->op, QStringLiteral("quantized::add"));
    QCOMPARE(row(QStringLiteral("features.3.conv"))->op, QStringLiteral("quantized::conv2d"));
    QVERIFY(result.onlyInFloat.contains(QStringLiteral("features.0.0.0")));
    QVERIFY(result.onlyInQuantized.contains(QStringLiteral("quant")));
    QVERIFY(result.onlyInQuantized.contains(QStringLiteral("dequant")));
    // Execution order: an inner module before the module that encloses it, blocks in order.
    QStringList order;
    for (const auto& m : result.modules) order << m.modulePath;
    QVERIFY(order.indexOf(QStringLiteral("features.0.0")) < order.indexOf(QStringLiteral("features.0")));
    QVERIFY(order.indexOf(QStringLiteral("features.0")) < order.indexOf(QStringLiteral("features.1")));
    QVERIFY(order.indexOf(QStringLiteral("features.17")) < order.indexOf(QStringLiteral("classifier")));
    // Colouring: a node takes its innermost module's SQNR; top-level nodes have none.
    const auto byNode = run::sqnrByNode(result, *q->current());
    QCOMPARE(byNode.value(fused->node), fused->diff.sqnrDb);
    for (model::NodeId id : q->current()->opNodeIds())
      QCOMPARE(byNode.contains(id), !q->current()->modulePathOf(id).isEmpty() && q->current()->modulePathOf(id) != QLatin1String("quant")
                                        && q->current()->modulePathOf(id) != QLatin1String("dequant"));
  }

  // A module whose shapes differ on the two sides is a row with a note, never the worst.
  void differentShapesAreANote() {
    const auto result = errorsOf(QStringLiteral("fx_cnn"), QStringLiteral(".wide_pool.pt"));
    QVERIFY2(result.ok, qPrintable(result.error));
    const auto pool = std::find_if(result.modules.begin(), result.modules.end(), [](const auto& m) { return m.modulePath == QLatin1String("pool"); });
    QVERIFY(pool != result.modules.end());
    QVERIFY2(!pool->diff.note.isEmpty(), "pool's shapes differ");
    QVERIFY(result.worst() && result.worst()->modulePath != QLatin1String("pool"));
  }

  void cliJson() {
    const QString q = quantFile(QStringLiteral("fx_cnn.quantized.pt")), f = quantFile(QStringLiteral("fx_cnn.float.pt"));
    const QString x = quantFile(QStringLiteral("fx_cnn.x.pt"));
    const auto r = graft::test::runCli({QStringLiteral("quant-error"), q, f, QStringLiteral("--input"), x, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject j = r.json();
    const QJsonArray modules = j[QStringLiteral("modules")].toArray();
    QStringList paths;
    for (const auto& v : modules) {
      const QJsonObject m = v.toObject();
      for (const char* key : {"module_path", "sqnr_db", "cosine", "max_abs", "numel", "op"})
        QVERIFY2(m.contains(QLatin1String(key)), key);
      paths << m[QStringLiteral("module_path")].toString();
    }
    QCOMPARE(paths, (QStringList{QStringLiteral("conv1"), QStringLiteral("conv2"), QStringLiteral("pool"), QStringLiteral("fc")}));
    QVERIFY(j[QStringLiteral("only_in_quantized")].isArray() && j[QStringLiteral("only_in_float")].isArray());
    const QJsonObject ref = referenceOf(QStringLiteral("fx_cnn"))[QStringLiteral("modules")].toObject();
    const QString worst = j[QStringLiteral("worst")].toObject()[QStringLiteral("module_path")].toString();
    for (const auto& p : paths)
      QVERIFY2(ref[worst].toObject()[QStringLiteral("sqnr_db")].toDouble() <= ref[p].toObject()[QStringLiteral("sqnr_db")].toDouble() + 0.01, qPrintable(worst + QStringLiteral(" vs ") + p));
    // Text: the worst named first, then the table.
    const auto text = graft::test::runCli({QStringLiteral("quant-error"), q, f, QStringLiteral("--input"), x});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.startsWith("worst: " + worst.toUtf8()), text.out.constData());
    // Bad input: one file, a missing file.
    QCOMPARE(graft::test::runCli({QStringLiteral("quant-error"), q}).exitCode, 2);
    QCOMPARE(graft::test::runCli({QStringLiteral("quant-error"), q, QStringLiteral("/no/such.pt"), QStringLiteral("--input"), x}).exitCode, 2);
  }
};

QTEST_GUILESS_MAIN(TstQuantError)
#include "tst_quant_error.moc"
