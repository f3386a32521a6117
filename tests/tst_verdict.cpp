// The verdict model (core/run/verdict.h) through graft-cli compare, checked against stock
// PyTorch's facts (tests/python/make_verdict_models.py): exact, equal within rounding, different.
#include "core/run/culprit.h"
#include "core/run/precision.h"
#include "core/run/verdict.h"
#include "test_support.h"

#include <ATen/ATen.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cmath>

using namespace graft;

namespace {

QString verdictFile(const QString& name) { return test::testdata(QStringLiteral("verdict/") + name); }

QString sourceFile(const QString& rel) { return QDir(qEnvironmentVariable("GRAFT_SOURCE_DIR")).filePath(rel); }

QJsonObject facts(const QString& net) {
  QFile f(verdictFile(QStringLiteral("verdict.json")));
  if (!f.open(QIODevice::ReadOnly)) qFatal("run the make_verdict_models fixture first");
  return QJsonDocument::fromJson(f.readAll()).object().value(net).toObject();
}

// graft-cli compare … --json; the exit code is checked by the caller.
test::CliResult compare(const QStringList& args) {
  return test::runCli(QStringList{QStringLiteral("compare")} + args + QStringList{QStringLiteral("--json")});
}

QString describe(const test::CliResult& r) {
  return QStringLiteral("exit %1, reason '%2', stderr %3")
      .arg(r.exitCode)
      .arg(r.json().value(QStringLiteral("verdict_reason")).toString(), QString::fromUtf8(r.err));
}

// Rewrites `model` with every step in `steps` (rules and passes), into `out`.
bool rewrite(const QString& model, const QStringList& steps, const QString& out) {
  const auto r = test::runCli(QStringList{QStringLiteral("rewrite"), model} + steps + QStringList{QStringLiteral("-o"), out});
  if (r.exitCode != 0) qWarning("rewrite failed: %s", r.err.constData());
  return r.exitCode == 0;
}

}  // namespace

class TstVerdict : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QVERIFY2(QFile::exists(verdictFile(QStringLiteral("verdict.json"))), "run the make_verdict_models fixture first"); }

  // The ladder itself: a float32-sized error is within float32 rounding, a TF32-sized one needs
  // the TF32 rung, a 1% change is within neither.
  void roundingLadder() {
    const at::Tensor r = at::linspace(-3, 3, 1000, at::kDouble);
    const at::Tensor a = r.to(at::kFloat).to(at::kDouble);  // one float32 rounding
    core::run::RoundingModel m;
    m.ladderB = {{0x1p-24, QStringLiteral("float32 rounding")}, {core::run::kTf32UnitRoundoff, QStringLiteral("TF32 rounding"), true}};
    const auto same = core::run::judgeRounding(a, a, r, m);
    QVERIFY(same.within);
    QCOMPARE(same.explainedBy, QStringLiteral("float32 rounding"));
    // The TF32 rung is measured: A run with TF32's rounding says how far B may go.
    const at::Tensor tf32 = core::run::roundToTf32(r.to(at::kFloat)).to(at::kDouble);
    const auto t = core::run::judgeRounding(a, tf32, r, m, tf32);
    QVERIFY(t.within);
    QCOMPARE(t.explainedBy, QStringLiteral("TF32 rounding"));
    const auto planted = core::run::judgeRounding(a, a * 1.01, r, m, tf32);
    QVERIFY(!planted.within);
    QVERIFY(planted.beyond > 0);
    // Non-finite places are the caller's: here they are left out of the error.
    const at::Tensor withInf = a.clone();
    withInf[0] = INFINITY;
    QVERIFY(core::run::judgeRounding(a, withInf, r, m).within);
  }

  // Below float32's normal range a rounding errs by the subnormal spacing (1.4e-45), whatever the
  // value: a few spacings are rounding, a 1% change is not.
  void subnormalFloor() {
    const double spacing = std::ldexp(1.0, -149);
    const at::Tensor r = at::linspace(-6e-41, 6e-41, 1001, at::kDouble);
    const at::Tensor a = r.to(at::kFloat).to(at::kDouble);  // one float32 rounding: up to half a spacing
    core::run::RoundingModel m;
    m.ladderB = {{0x1p-24, QStringLiteral("float32 rounding")}};
    QCOMPARE(core::run::subnormalSpacing(at::kFloat), spacing);
    QCOMPARE(core::run::subnormalSpacing(at::kHalf), std::ldexp(1.0, -24));
    QCOMPARE(core::run::subnormalSpacing(at::kBFloat16), std::ldexp(1.0, -133));
    const auto few = core::run::judgeRounding(a, a + 12 * spacing, r, m);
    QVERIFY2(few.within, qPrintable(QString::number(few.ratio)));
    const auto planted = core::run::judgeRounding(a, a * 1.01, r, m);
    QVERIFY(!planted.within);
    // The floor never excuses losing the whole value: everything below the spacing, flushed to 0.
    const at::Tensor tiny = at::full({8}, 1e-46, at::kDouble);
    QVERIFY(!core::run::judgeRounding(tiny, at::zeros_like(tiny), tiny, m).within);
  }

  // A correct fold of a batch norm whose outputs are float32 subnormals (~6e-41): the folded
  // weights are subnormal too and err by a few spacings. Stock PyTorch computes the same outputs
  // from both files within 1e-43; Graft says equal within float32 rounding.
  void subnormalFoldIsWithinRounding() {
    QTemporaryDir dir;
    const QString model = verdictFile(QStringLiteral("subnormal.pt")), x = verdictFile(QStringLiteral("subnormal.x.pt"));
    const QString folded = dir.filePath(QStringLiteral("folded.pt"));
    QVERIFY(rewrite(model, {QStringLiteral("--rule"), QStringLiteral("fold-conv-bn")}, folded));
    const auto py = test::runPython(sourceFile(QStringLiteral("tests/python/check_rewrite.py")),
                                    {model, folded, QStringLiteral("1x32x8x8"), QStringLiteral("--atol"), QStringLiteral("1e-43"),
                                     QStringLiteral("--rtol"), QStringLiteral("0")});
    QVERIFY2(py.exitCode == 0, (py.out + py.err).constData());
    QVERIFY2(QJsonDocument::fromJson(py.out).object().value(QStringLiteral("max_abs")).toDouble() > 0, py.out.constData());
    const auto r = compare({model, folded, QStringLiteral("--input"), x, QStringLiteral("--per-node")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.json().value(QStringLiteral("agreement")).toString(), QStringLiteral("within_rounding"));
    QVERIFY2(r.json().value(QStringLiteral("verdict_reason")).toString().startsWith(QStringLiteral("within float32 rounding")), qPrintable(describe(r)));
  }

  // Bloom's program casts its alibi tensor to float32 itself: the float64 reference run casts it
  // as the float16 run does (baddbmm takes one dtype), so the verdict is judged by the rounding
  // model, and stock .half()'s error is well within it.
  void bloomHalfIsWithinRounding() {
    QFile f(verdictFile(QStringLiteral("bloom.json")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject stock = QJsonDocument::fromJson(f.readAll()).object();
    const double stockError = stock.value(QStringLiteral("float16_max_abs_error")).toDouble();
    QVERIFY(stockError > 0 && stockError < 1e-2 * stock.value(QStringLiteral("scale")).toDouble());
    const auto r = compare({verdictFile(QStringLiteral("bloom.pt2")), QStringLiteral("--dtype-b"), QStringLiteral("float16"),
                            QStringLiteral("--input"), verdictFile(QStringLiteral("bloom.x.pt"))});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.json().value(QStringLiteral("agreement")).toString(), QStringLiteral("within_rounding"));
    const QString reason = r.json().value(QStringLiteral("verdict_reason")).toString();
    QVERIFY2(reason.startsWith(QStringLiteral("within float16 rounding")), qPrintable(describe(r)));
    // Graft's float16 error is of the size stock's own .half() shows.
    const double maxAbs = r.json().value(QStringLiteral("outputs")).toArray().first().toObject().value(QStringLiteral("max_abs")).toDouble();
    QVERIFY2(maxAbs > 0 && maxAbs < 10 * stockError, qPrintable(QStringLiteral("%1 vs stock %2").arg(maxAbs).arg(stockError)));
  }

  // TF32 keeps 10 mantissa bits, rounding half away from zero, and leaves inf and NaN alone.
  void tf32Rounding() {
    const at::Tensor x = at::tensor({1.0f + 0x1p-11f, 1.0f + 0x1p-12f, -(1.0f + 3 * 0x1p-11f), INFINITY, NAN}, at::kFloat);
    const at::Tensor y = core::run::roundToTf32(x);
    QCOMPARE(y[0].item<float>(), 1.0f + 0x1p-10f);  // a tie rounds away
    QCOMPARE(y[1].item<float>(), 1.0f);
    QCOMPARE(y[2].item<float>(), -(1.0f + 2 * 0x1p-10f));
    QVERIFY(std::isinf(y[3].item<float>()));
    QVERIFY(std::isnan(y[4].item<float>()));
  }

  // Float16's range ends at 65504: the net's 9.2e5 is inf in stock .half(), and different here.
  // Bfloat16 has float32's range: no overflow, whatever else it says.
  void overflow_data() {
    QTest::addColumn<QString>("dtype");
    QTest::newRow("float16") << QStringLiteral("float16");
    QTest::newRow("bfloat16") << QStringLiteral("bfloat16");
  }
  void overflow() {
    QFETCH(QString, dtype);
    const QJsonObject stock = facts(QStringLiteral("overflow"));
    const auto r = compare({verdictFile(QStringLiteral("overflow.pt2")), QStringLiteral("--dtype-b"), dtype, QStringLiteral("--input"),
                            verdictFile(QStringLiteral("overflow.x.pt"))});
    const QJsonObject j = r.json();
    const QJsonObject out = j.value(QStringLiteral("outputs")).toArray().first().toObject();
    const int stockInf = stock.value(dtype + QStringLiteral("_inf")).toInt();
    QCOMPARE(out.value(QStringLiteral("non_finite_mismatched")).toInt(), stockInf);
    if (stockInf > 0) {
      QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
      QCOMPARE(j.value(QStringLiteral("agreement")).toString(), QStringLiteral("different"));
      QVERIFY2(j.value(QStringLiteral("verdict_reason")).toString().startsWith(QStringLiteral("overflow: B is inf where A is")),
               qPrintable(describe(r)));
      QVERIFY(!out.value(QStringLiteral("allclose")).toBool());
      // precision has nothing to keep in float32 that brings inf back: an answer, "no", exit 1.
      const auto p = test::runCli({QStringLiteral("precision"), verdictFile(QStringLiteral("overflow.pt2")), QStringLiteral("--dtype-b"), dtype,
                                   QStringLiteral("--input"), verdictFile(QStringLiteral("overflow.x.pt")), QStringLiteral("--json")});
      QVERIFY2(p.exitCode == 1, p.err.constData());
    } else {
      QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(describe(r)));
      QVERIFY(!j.value(QStringLiteral("verdict_reason")).toString().contains(QStringLiteral("overflow")));
    }
  }

  // Values below float16's smallest flush to 0: different, off by all of A (max_rel 1, at A's
  // scale, not 0), and the reason names the underflow with stock PyTorch's count of flushed values.
  void underflow_data() { overflow_data(); }
  void underflow() {
    QFETCH(QString, dtype);
    const int flushed = facts(QStringLiteral("underflow")).value(dtype + QStringLiteral("_flushed")).toInt();
    const auto r = compare({verdictFile(QStringLiteral("underflow.pt2")), QStringLiteral("--dtype-b"), dtype, QStringLiteral("--input"),
                            verdictFile(QStringLiteral("underflow.x.pt"))});
    const QJsonObject j = r.json();
    const QJsonObject out = j.value(QStringLiteral("outputs")).toArray().first().toObject();
    const QString reason = j.value(QStringLiteral("verdict_reason")).toString();
    if (flushed > 0) {
      QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
      QCOMPARE(out.value(QStringLiteral("max_rel")).toDouble(), 1.0);
      QVERIFY2(reason.contains(QStringLiteral("underflow: B is 0 at %1 of 32 places").arg(flushed)), qPrintable(reason));
      QVERIFY2(!reason.contains(QStringLiteral("at scale 0")), qPrintable(reason));
    } else {
      QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));  // bfloat16 has float32's range
      QVERIFY2(!reason.contains(QStringLiteral("underflow")), qPrintable(reason));
    }
  }

  // A culprit's local error reads as a share of its values' scale.
  void shareOfScaleReads() {
    QCOMPARE(core::run::shareOfScale(0.0312), QStringLiteral("3.12% of its scale"));
    QCOMPARE(core::run::shareOfScale(1.0), QStringLiteral("100% of its scale"));
    QCOMPARE(core::run::shareOfScale(25.0), QStringLiteral("2500% of its scale"));
  }

  // 0/0 where a lower precision rounds a small offset away: NaN where A is finite, always different.
  void nanAtLowerPrecision_data() { overflow_data(); }
  void nanAtLowerPrecision() {
    QFETCH(QString, dtype);
    const auto r = compare({verdictFile(QStringLiteral("cancel.pt2")), QStringLiteral("--dtype-b"), dtype, QStringLiteral("--input"),
                            verdictFile(QStringLiteral("cancel.x.pt"))});
    QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
    const QJsonObject j = r.json();
    QVERIFY2(j.value(QStringLiteral("verdict_reason")).toString().startsWith(QStringLiteral("NaN: B is nan where A is")), qPrintable(describe(r)));
    const QJsonObject out = j.value(QStringLiteral("outputs")).toArray().first().toObject();
    QCOMPARE(out.value(QStringLiteral("non_finite_mismatched")).toInt(), facts(QStringLiteral("cancel")).value(dtype + QStringLiteral("_nan")).toInt());
  }

  // A model whose outputs hold NaN is equal to itself: NaN where the other side has NaN.
  void nanAgainstItself() {
    const auto r = compare({verdictFile(QStringLiteral("log_nan.pt2")), QStringLiteral("--input"), verdictFile(QStringLiteral("log_nan.x.pt")),
                            QStringLiteral("--per-node")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject j = r.json();
    QCOMPARE(j.value(QStringLiteral("agreement")).toString(), QStringLiteral("exact"));
    QVERIFY(j.value(QStringLiteral("verdict_reason")).toString().contains(QStringLiteral("NaN on both sides")));
    const QJsonObject out = j.value(QStringLiteral("outputs")).toArray().first().toObject();
    QCOMPARE(out.value(QStringLiteral("nan_both")).toInt(), facts(QStringLiteral("log_nan")).value(QStringLiteral("float32_nan")).toInt());
    // At float16 the NaN stay where they were: they are not what differs.
    const auto half = compare({verdictFile(QStringLiteral("log_nan.pt2")), QStringLiteral("--dtype-b"), QStringLiteral("float16"),
                               QStringLiteral("--input"), verdictFile(QStringLiteral("log_nan.x.pt"))});
    const QJsonObject h = half.json().value(QStringLiteral("outputs")).toArray().first().toObject();
    QCOMPARE(h.value(QStringLiteral("non_finite_mismatched")).toInt(), 0);
    QCOMPARE(h.value(QStringLiteral("nan_both")).toInt(), out.value(QStringLiteral("nan_both")).toInt());
  }

  // Semantics-preserving rewrites only reorder float32 arithmetic: equal within float32 rounding,
  // intermediates included (exit 0, not 3).
  void rewriteIsWithinRounding_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QStringList>("steps");
    const QStringList all{QStringLiteral("--rule"), QStringLiteral("fold-conv-bn"), QStringLiteral("--rule"), QStringLiteral("fuse-add-relu"),
                          QStringLiteral("--rule"), QStringLiteral("remove-dropout"), QStringLiteral("--rule"), QStringLiteral("gelu-decompose"),
                          QStringLiteral("--rule"), QStringLiteral("hardswish-decompose"), QStringLiteral("--rule"), QStringLiteral("silu-decompose"),
                          QStringLiteral("--rule"), QStringLiteral("linear-to-addmm"), QStringLiteral("--pass"), QStringLiteral("cse"),
                          QStringLiteral("--pass"), QStringLiteral("dead-code-elimination"), QStringLiteral("--pass"), QStringLiteral("constant-propagation")};
    const QString cnn = QStringLiteral("1x3x96x96");
    QTest::newRow("resnet50 fold") << QStringLiteral("resnet50.pt") << QStringLiteral("1x3x224x224")
                                   << QStringList{QStringLiteral("--rule"), QStringLiteral("fold-conv-bn")};
    QTest::newRow("resnet18 all") << QStringLiteral("resnet18.pt") << cnn << all;
    QTest::newRow("mobilenet_v2 all") << QStringLiteral("mobilenet_v2.pt") << cnn << all;
    QTest::newRow("googlenet all") << QStringLiteral("googlenet.pt") << cnn << all;
    QTest::newRow("shufflenet all") << QStringLiteral("shufflenet_v2_x0_5.pt") << cnn << all;
    QTest::newRow("squeezenet all") << QStringLiteral("squeezenet1_1.pt") << cnn << all;
    QTest::newRow("mobilenet_v3_small.pt2 all") << QStringLiteral("pt2/mobilenet_v3_small.pt2") << QString() << all;
    QStringList decomposed = all;  // fuse-add-relu breaks run_decompositions() programs (refused at save)
    decomposed.removeAt(decomposed.indexOf(QStringLiteral("fuse-add-relu")) - 1);
    decomposed.removeAll(QStringLiteral("fuse-add-relu"));
    QTest::newRow("resnet18_decomposed.pt2 all") << QStringLiteral("pt2/resnet18_decomposed.pt2") << QString() << decomposed;
    QTest::newRow("efficientnet_v2_s all") << QStringLiteral("zoo/efficientnet_v2_s.pt") << QStringLiteral("zoo/efficientnet_v2_s.inputs.pt") << all;
    QTest::newRow("convnext_tiny all") << QStringLiteral("zoo/convnext_tiny.pt") << QStringLiteral("zoo/convnext_tiny.inputs.pt") << all;
    QTest::newRow("bert.pt2 all") << QStringLiteral("pt2/bert.pt2") << QString() << all;
    QTest::newRow("bert trace all") << QStringLiteral("zoo/bert.pt") << QStringLiteral("zoo/bert.inputs.pt") << all;
    QTest::newRow("gpt2 trace all") << QStringLiteral("zoo/gpt2.pt") << QStringLiteral("zoo/gpt2.inputs.pt") << all;
  }
  void rewriteIsWithinRounding() {
    QFETCH(QString, model);
    QFETCH(QString, input);
    QFETCH(QStringList, steps);
    QTemporaryDir dir;
    const QString path = test::testdata(model);
    const QString out = dir.filePath(QStringLiteral("rewritten.") + QFileInfo(path).suffix());
    QVERIFY(rewrite(path, steps, out));
    QStringList args{path, out, QStringLiteral("--per-node")};
    if (!input.isEmpty()) args << QStringLiteral("--input") << (input.contains(QLatin1Char('/')) ? test::testdata(input) : input);
    const auto r = compare(args);
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject j = r.json();
    QVERIFY(j.value(QStringLiteral("first_divergence")).isNull());
    QVERIFY(j.value(QStringLiteral("intermediate_divergence")).isNull());
    const QString agreement = j.value(QStringLiteral("agreement")).toString();
    QVERIFY2(agreement == QLatin1String("exact") || agreement == QLatin1String("within_rounding"), qPrintable(agreement));
    if (agreement == QLatin1String("within_rounding"))
      QVERIFY2(j.value(QStringLiteral("verdict_reason")).toString().startsWith(QStringLiteral("within float32 rounding")), qPrintable(describe(r)));
  }

  // A real change is different, and the first node that differs is where it was planted: one
  // weight scaled by 1.01 (two files, paired by structure) and one relu made gelu (a rule).
  void plantedChangeIsDifferent() {
    const QJsonObject stock = facts(QStringLiteral("r18_scaled"));
    const QString x = verdictFile(QStringLiteral("r18.x.pt"));
    for (const QString& tf32 : {QStringLiteral("default"), QStringLiteral("emulate")}) {
      const auto r = compare({verdictFile(QStringLiteral("r18.pt")), verdictFile(QStringLiteral("r18_scaled.pt")), QStringLiteral("--input"), x,
                              QStringLiteral("--per-node"), QStringLiteral("--tf32"), tf32});
      QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
      const QJsonObject first = r.json().value(QStringLiteral("first_divergence")).toObject();
      QCOMPARE(first.value(QStringLiteral("module_path")).toString(), stock.value(QStringLiteral("module_path")).toString());
      const double maxAbs = r.json().value(QStringLiteral("outputs")).toArray().first().toObject().value(QStringLiteral("max_abs")).toDouble();
      if (tf32 == QLatin1String("default"))  // on the CPU: stock PyTorch's own difference
        QVERIFY2(std::abs(maxAbs - stock.value(QStringLiteral("output_max_abs")).toDouble()) < 1e-4, qPrintable(QString::number(maxAbs)));
    }
    QTemporaryDir dir;
    const QString rule = dir.filePath(QStringLiteral("gelu.rule"));
    QFile f(rule);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("id: relu-to-gelu\ntitle: relu becomes gelu in layer2.1\n[pattern]\ngraph(%x):\n  %r = aten::relu_(%x)\n  return (%r)\n"
            "[replacement]\ngraph(%x):\n  %approx : str = prim::Constant[value=\"none\"]()\n  %r = aten::gelu(%x, %approx)\n  return (%r)\n"
            "[condition] module ~ layer2.1*\n");
    f.close();
    const QString gelu = dir.filePath(QStringLiteral("gelu.pt"));
    QVERIFY(rewrite(verdictFile(QStringLiteral("r18.pt")), {QStringLiteral("--rule"), rule}, gelu));
    const auto r = compare({verdictFile(QStringLiteral("r18.pt")), gelu, QStringLiteral("--input"), x, QStringLiteral("--per-node")});
    QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
    const QJsonObject first = r.json().value(QStringLiteral("first_divergence")).toObject();
    QVERIFY2(first.value(QStringLiteral("module_path")).toString().startsWith(QStringLiteral("layer2.1")), qPrintable(QJsonDocument(first).toJson()));
    QCOMPARE(first.value(QStringLiteral("op")).toString(), QStringLiteral("aten::gelu"));
  }

  // CUDA's TF32 convolutions, emulated on the CPU: equal within TF32 rounding, which float32
  // rounding alone does not explain; --tf32 off on the CPU changes nothing (exact).
  void emulatedTf32IsWithinTf32Rounding_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("input");
    QTest::newRow("resnet18") << verdictFile(QStringLiteral("r18.pt")) << verdictFile(QStringLiteral("r18.x.pt"));
    QTest::newRow("resnet50") << test::testdata(QStringLiteral("resnet50.pt")) << QStringLiteral("1x3x224x224");
  }
  void emulatedTf32IsWithinTf32Rounding() {
    QFETCH(QString, model);
    QFETCH(QString, input);
    const auto r = compare({model, QStringLiteral("--input"), input, QStringLiteral("--tf32"), QStringLiteral("emulate"), QStringLiteral("--per-node")});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(r.json().value(QStringLiteral("agreement")).toString(), QStringLiteral("within_rounding"));
    QVERIFY2(r.json().value(QStringLiteral("verdict_reason")).toString().startsWith(QStringLiteral("within emulated TF32 rounding")), qPrintable(describe(r)));
    QCOMPARE(r.json().value(QStringLiteral("tf32")).toString(), QStringLiteral("emulate"));
    const auto off = compare({model, QStringLiteral("--input"), input, QStringLiteral("--tf32"), QStringLiteral("off")});
    QVERIFY2(off.exitCode == 0, qPrintable(describe(off)));
    QCOMPARE(off.json().value(QStringLiteral("agreement")).toString(), QStringLiteral("exact"));
  }

  // --atol/--rtol mean what they say: elementwise, as torch.allclose.
  void explicitToleranceIsElementwise() {
    const QString x = verdictFile(QStringLiteral("r18.x.pt"));
    const auto r = compare({verdictFile(QStringLiteral("r18.pt")), QStringLiteral("--input"), x, QStringLiteral("--tf32"), QStringLiteral("emulate"),
                            QStringLiteral("--atol"), QStringLiteral("0"), QStringLiteral("--rtol"), QStringLiteral("0")});
    QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
    QCOMPARE(r.json().value(QStringLiteral("judged")).toString(), QStringLiteral("elementwise"));
    QVERIFY(r.json().value(QStringLiteral("verdict_reason")).toString().contains(QStringLiteral("beyond atol 0, rtol 0")));
  }

  // The culprit is the node whose own output first leaves float16's range, in-place writes
  // after it or not: resnet18's layer3.0.bn2 (its output is then written by `out += identity`),
  // where stock .half() first goes non-finite, not the relu_ that only carries the inf on.
  void culpritWrittenInPlaceLater() {
    QFile f(verdictFile(QStringLiteral("r18_overflow.json")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString stockFirst = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("first_non_finite")).toString();
    QCOMPARE(stockFirst, QStringLiteral("layer3.0.bn2"));
    const auto r = compare({verdictFile(QStringLiteral("r18_overflow.pt")), QStringLiteral("--dtype-b"), QStringLiteral("float16"),
                            QStringLiteral("--input"), verdictFile(QStringLiteral("r18_overflow.x.pt")), QStringLiteral("--per-node")});
    QVERIFY2(r.exitCode == 1, qPrintable(describe(r)));
    const QJsonObject first = r.json().value(QStringLiteral("first_divergence")).toObject();
    QCOMPARE(first.value(QStringLiteral("module_path")).toString(), stockFirst);
    const QJsonObject culprit = r.json().value(QStringLiteral("culprit")).toObject();
    QCOMPARE(culprit.value(QStringLiteral("module_path")).toString(), stockFirst);
    QCOMPARE(culprit.value(QStringLiteral("op")).toString(), QStringLiteral("aten::batch_norm"));
  }

  // Culprits are nodes that introduce error in what they finally hold: not a buffer filled in
  // place later (swin's new_zeros then fill_), not an op whose only difference is integer
  // indices (max_pool2d_with_indices); and reduce's repro holds the culprit.
  void culprit_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("notOp");
    QTest::newRow("swin_t") << QStringLiteral("swin_t.pt2") << QStringLiteral("aten::new_zeros");
    QTest::newRow("densenet121 decomposed") << QStringLiteral("densenet121_decomposed.pt2") << QStringLiteral("aten::max_pool2d_with_indices");
    QTest::newRow("rms") << QStringLiteral("rms.pt2") << QString();
  }
  void culprit() {
    QFETCH(QString, model);
    QFETCH(QString, notOp);
    QStringList args{verdictFile(model), QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("--per-node")};
    if (model == QLatin1String("rms.pt2")) args << QStringLiteral("--input") << verdictFile(QStringLiteral("rms.x.pt"));
    const auto r = compare(args);
    QVERIFY2(r.exitCode == 0 || r.exitCode == 1 || r.exitCode == 3, qPrintable(describe(r)));
    const QJsonObject j = r.json();
    const QJsonArray rows = j.value(QStringLiteral("nodes")).toArray();
    for (const auto& v : rows) {
      const QJsonObject row = v.toObject();
      // Integer outputs are counted apart: a row is never beyond for its indices alone.
      if (row.value(QStringLiteral("integer_mismatched")).toInt() > 0 && row.value(QStringLiteral("op")).toString() == notOp)
        QVERIFY2(row.value(QStringLiteral("allclose")).toBool(), qPrintable(QJsonDocument(row).toJson()));
    }
    if (j.value(QStringLiteral("culprit")).isNull()) {
      QVERIFY2(model != QLatin1String("rms.pt2"), "the overflowing norm has a culprit");
      return;
    }
    const QJsonObject c = j.value(QStringLiteral("culprit")).toObject();
    if (!notOp.isEmpty()) QVERIFY2(c.value(QStringLiteral("op")).toString() != notOp, qPrintable(QJsonDocument(c).toJson()));
    for (const auto& v : rows)
      if (v.toObject().value(QStringLiteral("node")) == c.value(QStringLiteral("node")))
        QVERIFY(!v.toObject().value(QStringLiteral("written_later")).toBool());
    if (model == QLatin1String("rms.pt2")) QCOMPARE(c.value(QStringLiteral("module_path")).toString(), QStringLiteral("norm"));
    QTemporaryDir dir;
    QStringList reduceArgs{QStringLiteral("reduce"), verdictFile(model), QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("-o"),
                           dir.filePath(QStringLiteral("repro.pt2")), QStringLiteral("--json")};
    if (model == QLatin1String("rms.pt2")) reduceArgs << QStringLiteral("--input") << verdictFile(QStringLiteral("rms.x.pt"));
    const auto red = test::runCli(reduceArgs);
    QVERIFY2(red.exitCode == 0, red.err.constData());
    bool holdsCulprit = false;
    for (const auto& v : red.json().value(QStringLiteral("subgraph")).toArray())
      holdsCulprit = holdsCulprit || v.toObject().value(QStringLiteral("node")) == c.value(QStringLiteral("node_a"));
    QVERIFY2(holdsCulprit, qPrintable(QString::fromUtf8(red.out)));
  }
};

QTEST_GUILESS_MAIN(TstVerdict)
#include "tst_verdict.moc"
