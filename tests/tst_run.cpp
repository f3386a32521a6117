// Runs and comparisons: input specs, the fast and the instrumented executor (checked against stock
// PyTorch's output and each other bit for bit), per-node comparison and first divergence, errors
// naming the node, and graft-cli compare.
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/model/graph_view.h"
#include "core/run/compare.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "core/io/input_specs.h"
#include "test_support.h"

#include <torch/script.h>
#include <torch/serialize.h>

#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

QString runDir() { return graft::test::testdata(QStringLiteral("run")); }
QString runFile(const char* name) { return runDir() + QLatin1Char('/') + QLatin1String(name); }

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

model::InputSet inputs(const QStringList& specs, std::uint64_t seed = 0) {
  auto r = io::parseInputs(specs, seed);
  if (!r.inputs) qFatal("%s", qPrintable(r.error));
  return *r.inputs;
}

// Replaces the `index`-th aten::relu of a copy of `rev` with aten::gelu; returns the new revision
// and the gelu's NodeId.
std::pair<model::RevisionPtr, model::NodeId> reluToGelu(model::Document& doc, int index) {
  auto copy = doc.current()->cloneGraph();
  torch::jit::Node* relu = nullptr;
  int seen = 0;
  for (auto* n : copy.graph->nodes())
    if (n->kind() == c10::Symbol::fromQualString("aten::relu") && seen++ == index) relu = n;
  if (!relu) qFatal("no relu #%d", index);
  torch::jit::Node* gelu = nullptr;
  {
    torch::jit::WithInsertPoint guard(relu);
    torch::jit::Value* approximate = copy.graph->insertConstant(std::string("none"));
    gelu = copy.graph->insertNode(copy.graph->create(c10::Symbol::fromQualString("aten::gelu"), {relu->input(0), approximate}));
    gelu->output()->setType(relu->output()->type());
  }
  relu->output()->replaceAllUsesWith(gelu->output());
  copy.ids.erase(relu);
  relu->destroy();
  auto rev = model::Revision::derived(*doc.current(), copy.graph, copy.ids, QStringLiteral("relu->gelu"), doc.ids());
  const model::NodeId id = rev->idOf(gelu);
  graft::core::edit::Session(doc).commitBuilt(rev);
  return {rev, id};
}

// Options for the instrumented path, optionally keeping every node's outputs.
run::RunOptions nodeByNode(bool keep = false) {
  run::RunOptions o;
  o.instrumented = true;
  o.keepIntermediates = keep;
  return o;
}

}  // namespace

class TstRun : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    if (!QFile::exists(runFile("run_cnn.out.pt"))) {
      const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_run_models.py"), {runDir()});
      QVERIFY2(py.exitCode == 0, py.err.constData());
    }
  }

  void inputSpecs() {
    const auto a = inputs({QStringLiteral("2x3x4:float64"), QStringLiteral("5:int64")}, 7);
    QCOMPARE(a.values.size(), size_t(2));
    QCOMPARE(a.values[0].toTensor().sizes().vec(), (std::vector<int64_t>{2, 3, 4}));
    QCOMPARE(a.values[0].toTensor().scalar_type(), torch::kDouble);
    QCOMPARE(a.values[1].toTensor().scalar_type(), torch::kLong);
    QCOMPARE(a.descriptions[0], QStringLiteral("Tensor float64 [2, 3, 4]"));
    // Seeded: the same seed gives the same values, another seed other values.
    QVERIFY(torch::equal(a.values[0].toTensor(), inputs({QStringLiteral("2x3x4:float64")}, 7).values[0].toTensor()));
    QVERIFY(!torch::equal(a.values[0].toTensor(), inputs({QStringLiteral("2x3x4:float64")}, 8).values[0].toTensor()));
    // Nested tuple and list specs.
    const auto t = inputs({QStringLiteral("(2x2,[3:float32,3x1])")});  // a bare 3 is an int
    QVERIFY(t.values[0].isTuple());
    QVERIFY(t.values[0].toTupleRef().elements()[1].isTensorList());
    for (const char* bad : {"2xq", "2x3:float99", "no/such/file.pt", "[]"}) {
      auto r = io::parseInputs({QLatin1String(bad)}, 0);
      QVERIFY2(!r.inputs && !r.error.isEmpty(), bad);
    }
  }

  void tensorFilesMatchPython() {
    const auto pt = inputs({runFile("run_x.pt")});
    const auto npy = inputs({runFile("run_x.npy")});
    QVERIFY(torch::equal(pt.values[0].toTensor(), npy.values[0].toTensor()));
    QCOMPARE(pt.values[0].toTensor().sizes().vec(), (std::vector<int64_t>{2, 3, 16, 16}));
  }

  // Damaged tensor files are refused with a message, never read past their end or allocated by
  // the size they claim (found by tests/fuzz/fuzz_inputs; the inputs are in tests/fuzz/regressions).
  void damagedTensorFilesAreRefused() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto write = [&](const QString& name, const QByteArray& bytes) {
      QFile f(dir.filePath(name));
      if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(f.fileName()));
      return f.fileName();
    };
    auto parse = [&](const QString& name, const QByteArray& bytes) { return io::parseInputs({write(name, bytes)}, 0); };
    // A torch.save'd zip whose central directory states lengths beyond the end of the file.
    QFile zip(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/fuzz/regressions/inputs/damaged_zip_tensor_file"));
    QVERIFY(zip.open(QIODevice::ReadOnly));
    auto r = parse(QStringLiteral("damaged.pt"), zip.readAll().mid(1));  // byte 0 is the harness's mode
    QVERIFY(!r.inputs);
    QVERIFY2(r.error.contains(QLatin1String("is not a torch.save'd tensor")), qPrintable(r.error));

    auto npy = [](char major, const QByteArray& header, const QByteArray& data) {
      QByteArray b("\x93NUMPY", 6);
      b += major;
      b += '\0';
      b += char(header.size() & 0xff);
      b += char((header.size() >> 8) & 0xff);
      if (major != 1) b += QByteArray(2, '\0');
      return b + header + data;
    };
    const QByteArray floats(8, '\0');  // two float32
    const QByteArray ok = npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", floats);
    QVERIFY(parse(QStringLiteral("ok.npy"), ok).inputs);
    const QByteArray cases[] = {
        QByteArray("\x93NUMPY\x02\x00\x10\x00", 10),  // version 2 ends inside its 4-byte header length
        QByteArray("\x93NUMPY\x03\x00\xff\xff\xff\xff", 10) + floats,  // header length past the end
        ok.left(30),  // the header cut short
        npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }", floats),  // claims 4 TB
        npy(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", floats),  // overflows
        npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", floats),
    };
    int i = 0;
    for (const QByteArray& bytes : cases) {
      r = parse(QStringLiteral("case%1.npy").arg(i++), bytes);
      QVERIFY2(!r.inputs && r.error.contains(QLatin1String(".npy")), qPrintable(QStringLiteral("case %1: %2").arg(i - 1).arg(r.error)));
    }
    // An empty array is fine.
    r = parse(QStringLiteral("empty.npy"), npy(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", {}));
    QVERIFY2(r.inputs, qPrintable(r.error));
    QCOMPARE(r.inputs->values[0].toTensor().sizes().vec(), (std::vector<int64_t>{0, 3}));
  }

  void defaultInputs() {
    auto sample = io::loadSample(QStringLiteral("cnn")).document;
    auto r = io::defaultInputs(*sample, 0);
    QVERIFY2(r.inputs, qPrintable(r.error));
    run::Executor ex(sample->current());
    QVERIFY(ex.run(*r.inputs, {}).ok);
    auto file = open(runFile("run_cnn.pt"));
    r = io::defaultInputs(*file, 0);
    QVERIFY(!r.inputs);
    QCOMPARE(r.missingShape, 0);
    QVERIFY2(r.error.contains(QLatin1String("input 0")) && r.error.contains(QLatin1String("shape")), qPrintable(r.error));
  }

  // The one syntax of the docks' input boxes.
  void specSplitting() {
    const QStringList two{QStringLiteral("1x3x8x8"), QStringLiteral("3")};
    QCOMPARE(io::splitInputSpecs(QStringLiteral("1x3x8x8 3")), two);
    QCOMPARE(io::splitInputSpecs(QStringLiteral("1x3x8x8; 3")), two);
    QCOMPARE(io::splitInputSpecs(QStringLiteral(" (2x2, 3x3)  none ")), (QStringList{QStringLiteral("(2x2,3x3)"), QStringLiteral("none")}));
    QCOMPARE(io::splitInputSpecs(QStringLiteral("\"my dir/x.pt\" [1, 2]")), (QStringList{QStringLiteral("my dir/x.pt"), QStringLiteral("[1,2]")}));
    QVERIFY(io::splitInputSpecs(QStringLiteral("  ")).isEmpty());
  }

  void scalarSpecs() {
    const auto s = inputs({QStringLiteral("3"), QStringLiteral("int:-2"), QStringLiteral("0.5"), QStringLiteral("float:2"),
                           QStringLiteral("true"), QStringLiteral("bool:false"), QStringLiteral("none"),
                           QStringLiteral("[1,2]"), QStringLiteral("(2x2,4)"), QStringLiteral("3:float32")});
    QCOMPARE(s.values[0].toInt(), int64_t(3));
    QCOMPARE(s.values[1].toInt(), int64_t(-2));
    QCOMPARE(s.values[2].toDouble(), 0.5);
    QCOMPARE(s.values[3].toDouble(), 2.0);
    QCOMPARE(s.values[4].toBool(), true);
    QCOMPARE(s.values[5].toBool(), false);
    QVERIFY(s.values[6].isNone());
    QVERIFY(s.values[7].isIntList());
    QVERIFY(s.values[8].toTupleRef().elements()[1].isInt());
    QCOMPARE(s.values[9].toTensor().sizes().vec(), std::vector<int64_t>{3});  // a shape has a dtype or an x
    QCOMPARE(s.descriptions[0], QStringLiteral("int 3"));
    for (const char* bad : {"int:x", "bool:maybe", "[1,2x2]", "float:"}) {
      auto r = io::parseInputs({QLatin1String(bad)}, 0);
      QVERIFY2(!r.inputs && !r.error.isEmpty(), bad);
    }
  }

  // forward(x, n: int, scale: float, flip: bool, bias: Optional[Tensor]) loops n times: both
  // paths against PyTorch's outputs, for two sets of scalars.
  void scalarArgumentsDriveControlFlow_data() {
    QTest::addColumn<QStringList>("scalars");
    QTest::addColumn<QString>("expected");
    QTest::newRow("n=3 flip") << QStringList{"3", "0.5", "true", "none"} << "loop_int.out.pt";
    QTest::newRow("n=2 typed") << QStringList{"int:2", "float:0.5", "bool:false", "none"} << "loop_int.out_2_false.pt";
  }
  void scalarArgumentsDriveControlFlow() {
    QFETCH(QStringList, scalars);
    QFETCH(QString, expected);
    auto doc = open(graft::test::testdata(QStringLiteral("hard/loop_int.pt")));
    const auto in = inputs(QStringList{graft::test::testdata(QStringLiteral("hard/loop_int.x.pt"))} + scalars);
    const at::Tensor reference = loadTensor(graft::test::testdata(QStringLiteral("hard/") + expected));
    run::Executor ex(doc->current());
    const auto fast = ex.run(in, {});
    QVERIFY2(fast.ok, qPrintable(fast.error.headline()));
    const auto slow = ex.run(in, nodeByNode(/*keep=*/true));
    QVERIFY2(slow.ok, qPrintable(slow.error.headline()));
    QVERIFY(torch::allclose(fast.outputs[0].toTensor(), reference, 1e-5, 1e-6));
    QVERIFY(torch::equal(fast.outputs[0].toTensor(), slow.outputs[0].toTensor()));
    QCOMPARE(slow.outputs[1].toInt(), in.values[1].toInt() * 2);
    // The loop body ran n times: one aten::linear record per trip.
    const auto linears = std::count_if(slow.nodes.begin(), slow.nodes.end(), [](const run::NodeRecord& r) { return r.op == QLatin1String("aten::linear"); });
    QCOMPARE(int64_t(linears), in.values[1].toInt());
  }

  // Inputs given by name (NAME=SPEC) land at their argument's position, after positional ones, and
  // give the same values as the positional form; a wrong or repeated name, or a name after which a
  // positional spec comes, is refused with the names the model has.
  void namedInputs() {
    auto doc = open(graft::test::testdata(QStringLiteral("hard/loop_int.pt")));
    const QString x = graft::test::testdata(QStringLiteral("hard/loop_int.x.pt"));
    QCOMPARE(io::inputNames(*doc), (QStringList{"x", "n", "scale", "flip", "bias"}));
    const auto positional = io::inputsFor(*doc, {x, "2", "0.5", "false", "none"}, 0);
    QVERIFY(positional.inputs);
    const auto named = io::inputsFor(*doc, {x, "flip=false", "n=2", "bias=none", "scale=0.5"}, 0);
    QVERIFY2(named.inputs, qPrintable(named.error));
    QCOMPARE(named.inputs->descriptions, positional.inputs->descriptions);
    const at::Tensor reference = loadTensor(graft::test::testdata(QStringLiteral("hard/loop_int.out_2_false.pt")));
    const auto r = run::Executor(doc->current()).run(*named.inputs, {});
    QVERIFY2(r.ok, qPrintable(r.error.headline()));
    QVERIFY(torch::allclose(r.outputs[0].toTensor(), reference, 1e-5, 1e-6));
    // Random specs by name draw the same seeded values as in order.
    auto cnn = open(graft::test::testdata(QStringLiteral("resnet18.pt")));
    const auto a = io::inputsFor(*cnn, {"1x3x32x32"}, 7), b = io::inputsFor(*cnn, {QStringLiteral("%1=1x3x32x32").arg(io::inputNames(*cnn).value(0))}, 7);
    QVERIFY(a.inputs && b.inputs);
    QVERIFY(torch::equal(a.inputs->values[0].toTensor(), b.inputs->values[0].toTensor()));
    for (const QStringList& bad : {QStringList{x, "m=2"}, QStringList{x, "n=2", "n=3"}, QStringList{"n=2", x}, QStringList{x, "2", "n=3"}}) {
      const auto refused = io::inputsFor(*doc, bad, 0);
      QVERIFY2(!refused.inputs && !refused.error.isEmpty(), qPrintable(bad.join(' ')));
    }
    QVERIFY(io::inputsFor(*doc, {x, "m=2"}, 0).error.contains(QLatin1String("x, n, scale, flip, bias")));
    // Without defaults, what is not given is named.
    const auto missing = io::inputsFor(*doc, {x, "n=2"}, 0);
    QVERIFY(!missing.inputs);
    QVERIFY2(missing.error.contains(QLatin1String("scale, flip, bias")), qPrintable(missing.error));
  }

  // A file saved as torch.save([x], F) gives one input per tensor, as a tuple does; a value that
  // is no tensor where forward takes a Tensor is refused naming the input, before any op runs.
  void tensorListFileAndWrongKinds() {
    auto cnn = open(graft::test::testdata(QStringLiteral("resnet18.pt")));
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("list.pt"));
    const at::Tensor x = torch::randn({1, 3, 32, 32});
    {
      const std::vector<char> bytes = torch::pickle_save(c10::IValue(c10::List<at::Tensor>({x})));
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bytes.data(), qint64(bytes.size()));
    }
    const auto listed = io::inputsFor(*cnn, {file}, 0);
    QVERIFY2(listed.inputs, qPrintable(listed.error));
    QCOMPARE(listed.inputs->values.size(), size_t(1));
    QVERIFY(listed.inputs->values[0].isTensor() && torch::equal(listed.inputs->values[0].toTensor(), x));
    const auto r = run::Executor(cnn->current()).run(*listed.inputs, {});
    QVERIFY2(r.ok, qPrintable(r.error.headline()));
    const auto tuple = io::inputsFor(*cnn, {QStringLiteral("(1x3x32x32,1x3x32x32)")}, 0);
    QVERIFY(!tuple.inputs);
    QVERIFY2(tuple.error.startsWith(QStringLiteral("input 0 '")) && tuple.error.contains(QStringLiteral("takes Tensor")),
             qPrintable(tuple.error));
  }

  // Eager-quantized torchvision MobileNetV2: runs on both paths as in PyTorch, and a per-node
  // compare of its quantized intermediates works (it used to abort the process).
  void quantizedModelRunsAndCompares() {
    auto doc = open(graft::test::testdata(QStringLiteral("hard/quantized_mobilenet_v2.pt")));
    const auto in = inputs({graft::test::testdata(QStringLiteral("hard/quantized_mobilenet_v2.x.pt"))});
    const at::Tensor reference = loadTensor(graft::test::testdata(QStringLiteral("hard/quantized_mobilenet_v2.out.pt")));
    run::Executor ex(doc->current());
    const auto fast = ex.run(in, {});
    QVERIFY2(fast.ok, qPrintable(fast.error.headline()));
    QVERIFY(torch::allclose(fast.outputs[0].toTensor(), reference, 1e-5, 1e-6));
    run::CompareOptions o;
    o.perNode = true;
    const auto result = run::compareRevisions(doc->current(), doc->current(), in, o);
    QVERIFY2(result.ok, qPrintable(result.error));
    QVERIFY(result.equal);
    QVERIFY(result.nodes && result.nodes->nodes.size() > 50);
    for (const auto& n : result.nodes->nodes) QVERIFY2(n.diff.allclose && n.diff.note.isEmpty(), qPrintable(n.opA + n.diff.note));
    // Quantized values compare by their real values: a quantized tensor against its dequantized self.
    const at::Tensor q = at::quantize_per_tensor(torch::randn({4, 4}), 0.1, 3, torch::kQUInt8);
    const auto d = run::compareTensors(q, q.dequantize(), {});
    QVERIFY2(d.allclose && d.note.isEmpty(), qPrintable(d.note));
  }

  // A CNN quantized with torch.ao.quantization.quantize_fx (prepare_fx, convert_fx) and traced:
  // it opens, both run paths give PyTorch's output, and a per-node self-compare is equal.
  void fxQuantizedModelMatchesPyTorch() {
    const QString base = graft::test::testdata(QStringLiteral("hard/quantized_fx_cnn"));
    auto doc = open(base + QStringLiteral(".pt"));
    const auto in = inputs({base + QStringLiteral(".x.pt")});
    const at::Tensor reference = loadTensor(base + QStringLiteral(".out.pt"));
    run::Executor ex(doc->current());
    const auto fast = ex.run(in, {});
    QVERIFY2(fast.ok, qPrintable(fast.error.headline()));
    QVERIFY(torch::allclose(fast.outputs[0].toTensor(), reference, 1e-5, 1e-6));
    run::RunOptions walk;
    walk.instrumented = true;
    const auto slow = ex.run(in, walk);
    QVERIFY2(slow.ok, qPrintable(slow.error.headline()));
    QVERIFY(torch::allclose(slow.outputs[0].toTensor(), reference, 1e-5, 1e-6));
    run::CompareOptions o;
    o.perNode = true;
    const auto result = run::compareRevisions(doc->current(), doc->current(), in, o);
    QVERIFY2(result.ok, qPrintable(result.error));
    QVERIFY(result.equal);
  }

  // The first quantized convolution's packed weight, as the view (and so the Inspector) shows
  // it, against what PyTorch reports: per tensor (eager MobileNetV2) and per channel (fx CNN).
  void quantizedWeightsShowTheirParameters_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("eager per tensor") << "quantized_mobilenet_v2";
    QTest::newRow("fx per channel") << "quantized_fx_cnn";
  }
  void quantizedWeightsShowTheirParameters() {
    QFETCH(QString, model);
    const QString base = graft::test::testdata(QStringLiteral("hard/") + model);
    auto doc = open(base + QStringLiteral(".pt"));
    QFile f(base + QStringLiteral(".qparams.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject ref = QJsonDocument::fromJson(f.readAll()).object();
    const auto view = model::GraphView::build(*doc->current());
    QHash<QString, QString> facts;
    for (const auto& n : view.nodes) {
      if (!n.kind.startsWith(QLatin1String("quantized::conv"))) continue;
      for (const auto& a : n.attributes)
        if (a.kind == QLatin1String("quantization")) facts.insert(a.name.section(QLatin1Char('.'), -1), a.value);
      break;
    }
    QCOMPARE(facts.value("qscheme"), ref.value("qscheme").toString());
    QVERIFY(facts.value("weight").startsWith(QStringLiteral("Tensor")));
    auto near = [](double a, double b) { return qAbs(a - b) <= 1e-5 * qAbs(b); };
    const QString scale = facts.value("scale"), zero = facts.value("zero_point");
    if (ref.contains("axis")) {
      QCOMPARE(facts.value("axis").toInt(), ref.value("axis").toInt());
      // "min … max (N channels)", or one value when every channel has the same.
      const QStringList parts = scale.split(QLatin1Char(' '));
      QVERIFY2(near(parts.value(0).toDouble(), ref.value("scale_min").toDouble()), qPrintable(scale));
      if (ref.value("scale_min").toDouble() != ref.value("scale_max").toDouble()) {
        QVERIFY2(near(parts.value(2).toDouble(), ref.value("scale_max").toDouble()), qPrintable(scale));
        QVERIFY2(scale.contains(QStringLiteral("(%1 channels)").arg(ref.value("channels").toInt())), qPrintable(scale));
      }
      QCOMPARE(zero.split(QLatin1Char(' ')).value(0).toInt(), ref.value("zero_point_min").toInt());
    } else {
      QVERIFY2(near(scale.toDouble(), ref.value("scale_min").toDouble()), qPrintable(scale));
      QCOMPARE(zero.toInt(), ref.value("zero_point_min").toInt());
    }
  }

  void fastAndInstrumentedMatchPython() {
    auto doc = open(runFile("run_cnn.pt"));
    const auto in = inputs({runFile("run_x.pt")});
    const at::Tensor expected = loadTensor(runFile("run_cnn.out.pt"));
    run::Executor ex(doc->current());
    auto fast = ex.run(in, {});
    QVERIFY2(fast.ok, qPrintable(fast.error.headline()));
    QVERIFY(torch::allclose(fast.outputs[0].toTensor(), expected, 1e-5, 1e-6));
    auto slow = ex.run(in, nodeByNode(/*keep=*/true));
    QVERIFY2(slow.ok, qPrintable(slow.error.headline()));
    QVERIFY(torch::equal(fast.outputs[0].toTensor(), slow.outputs[0].toTensor()));
    // Every op node is recorded once, with its module path.
    QStringList ops;
    for (const auto& n : slow.nodes) ops << n.op + QLatin1Char('@') + n.modulePath;
    QVERIFY2(ops.contains(QStringLiteral("aten::relu@act2")), qPrintable(ops.join(' ')));
    QCOMPARE(ops.count(QStringLiteral("aten::_convolution@conv1")) + ops.count(QStringLiteral("aten::conv2d@conv1")), 1);
  }

  void untouchedComparesEqual() {
    auto a = open(runFile("run_cnn.pt"));
    auto b = open(runFile("run_cnn.pt"));
    run::CompareOptions o;
    o.perNode = true;
    o.matching = run::NodeMatching::ByStructure;
    auto r = run::compareRevisions(a->current(), b->current(), inputs({QStringLiteral("2x3x16x16")}), o);
    QVERIFY2(r.ok, qPrintable(r.error));
    QVERIFY(r.equal);
    QVERIFY(r.nodes && !r.nodes->firstBeyond);
    QVERIFY(r.nodes->unmatchedA.empty() && r.nodes->unmatchedB.empty());
    QCOMPARE(r.outputs[0].maxAbs, 0.0);
    QCOMPARE(r.outputs[0].cosine, 1.0);
  }

  // resnet18's relu_ overwrites the batch_norm output in place: the kept batch_norm value must be
  // the one before the relu (it has negatives), not the tensor as the relu left it.
  // Two loops share one `true` condition (the frozen graph pools constants): the node-by-node run
  // frees what a loop body hands out only where the body made it, so the second loop still reads
  // its condition, and both paths give TorchScript's own result.
  void loopsShareTheirCondition() {
    QTemporaryDir dir;
    torch::jit::Module m("TwoLoops");
    m.define(R"(
def forward(self, x):
    for i in range(x.size(0)):
        x = x + 1.0
    for j in range(x.size(1)):
        x = x * 2.0
    return x
)");
    const QString path = dir.filePath(QStringLiteral("loops.pt"));
    m.save(path.toStdString());
    auto loaded = io::loadFile(path);
    QVERIFY(loaded.ok());
    const at::Tensor x = torch::rand({2, 3});
    const at::Tensor expected = m.forward({x}).toTensor();
    run::Executor executor(loaded.document->current());
    for (bool instrumented : {false, true}) {
      run::RunOptions options;
      options.instrumented = instrumented;
      const auto r = executor.run(model::InputSet{{x}, {}}, options);
      QVERIFY2(r.ok, qPrintable(r.error.headline()));
      QVERIFY(torch::equal(r.outputs.front().toTensor(), expected));
    }
  }
  void keptValuesPrecedeInPlaceOps() {
    auto doc = open(graft::test::testdata(QStringLiteral("resnet18.pt")));
    run::Executor ex(doc->current());
    const auto r = ex.run(inputs({QStringLiteral("1x3x64x64")}), nodeByNode(/*keep=*/true));
    QVERIFY2(r.ok, qPrintable(r.error.headline()));
    const run::NodeRecord* bn = nullptr;
    const run::NodeRecord* relu = nullptr;
    for (const auto& rec : r.nodes) {
      if (rec.modulePath == QLatin1String("layer1.0.bn1") && !bn) bn = &rec;
      if (rec.modulePath == QLatin1String("layer1.0.relu") && !relu) relu = &rec;
    }
    QVERIFY(bn && relu);
    QCOMPARE(relu->op, QStringLiteral("aten::relu_"));
    const auto before = bn->outputs[0].toTensor(), after = relu->outputs[0].toTensor();
    QVERIFY(before.min().item<float>() < 0);
    QCOMPARE(after.min().item<float>(), 0.0f);
    QVERIFY(torch::equal(after, torch::relu(before)));
  }

  void geluRevisionDiverges() {
    auto doc = open(runFile("run_cnn.pt"));
    auto original = doc->current();
    auto [gelu, geluId] = reluToGelu(*doc, 1);
    run::CompareOptions o;
    auto r = run::compareRevisions(original, gelu, inputs({QStringLiteral("2x3x16x16")}), o);
    QVERIFY2(r.ok, qPrintable(r.error));
    QVERIFY(!r.equal);
    QVERIFY(r.outputs[0].mismatched > 0 && r.outputs[0].maxAbs > 1e-4);
    QVERIFY(r.nodes && r.firstDivergence());
    const auto& d = *r.firstDivergence();
    QCOMPARE(d.nodeB, geluId);
    QCOMPARE(d.opA, QStringLiteral("aten::relu"));
    QCOMPARE(d.opB, QStringLiteral("aten::gelu"));
    QCOMPARE(d.modulePath, QStringLiteral("act2"));
    // relu and gelu differ exactly on the negative inputs: gelu(x) - relu(x) is at most ~0.17.
    QVERIFY(d.diff.maxAbs > 0.01 && d.diff.maxAbs < 0.2);
    QVERIFY(r.nodes->unmatchedA.empty() && r.nodes->unmatchedB.empty());
  }

  void geluFileDiverges() {
    auto a = open(runFile("run_cnn.pt"));
    auto b = open(runFile("run_cnn_gelu.pt"));
    run::CompareOptions o;
    o.matching = run::NodeMatching::ByStructure;
    auto r = run::compareRevisions(a->current(), b->current(), inputs({runFile("run_x.pt")}), o);
    QVERIFY2(r.ok, qPrintable(r.error));
    QVERIFY(!r.equal);
    QVERIFY(r.nodes && r.firstDivergence());
    QCOMPARE(r.firstDivergence()->opB, QStringLiteral("aten::gelu"));
    QCOMPARE(r.firstDivergence()->modulePath, QStringLiteral("act2"));
    // Nodes before act2 matched and agree bit for bit.
    for (const auto& n : r.nodes->nodes) {
      if (n.modulePath == QLatin1String("act2")) break;
      QCOMPARE(n.diff.maxAbs, 0.0);
    }
  }

  void wrongInputShapeNamesTheNode() {
    auto doc = open(runFile("run_cnn.pt"));
    run::Executor ex(doc->current());
    for (bool instrumented : {false, true}) {
      run::RunOptions o;
      o.instrumented = instrumented;
      auto r = ex.run(inputs({QStringLiteral("2x5x16x16")}), o);
      QVERIFY(!r.ok);
      QVERIFY(r.error.node != model::kNoNode);
      QCOMPARE(r.error.modulePath, QStringLiteral("conv1"));
      QVERIFY2(r.error.op.contains(QLatin1String("conv")), qPrintable(r.error.op));
      QVERIFY2(r.error.headline().contains(QLatin1String("conv1")), qPrintable(r.error.headline()));
    }
    auto wrongCount = ex.run(inputs({QStringLiteral("2x3x16x16"), QStringLiteral("1")}), {});
    QVERIFY(!wrongCount.ok);
    QVERIFY2(wrongCount.error.message.contains(QLatin1String("takes 1 input")), qPrintable(wrongCount.error.message));
  }

  void tupleInputsAndOutputs() {
    auto doc = open(runFile("run_tuple.pt"));
    const auto in = inputs({QStringLiteral("2x3"), QStringLiteral("(2x3,4:float32)")}, 3);
    run::Executor ex(doc->current());
    auto fast = ex.run(in, {});
    QVERIFY2(fast.ok, qPrintable(fast.error.headline()));
    auto slow = ex.run(in, nodeByNode());
    QVERIFY2(slow.ok, qPrintable(slow.error.headline()));
    QCOMPARE(fast.outputs.size(), size_t(2));
    const auto& x = in.values[0].toTensor();
    const auto& pair = in.values[1].toTupleRef().elements();
    QVERIFY(torch::equal(fast.outputs[0].toTensor(), x + pair[0].toTensor()));
    QVERIFY(torch::equal(slow.outputs[0].toTensor(), x + pair[0].toTensor()));
    const auto list = slow.outputs[1].toListRef();
    QVERIFY(torch::equal(list[0].toTensor(), pair[1].toTensor() * 2));
    const auto diffs = run::compareOutputs(fast.outputs, slow.outputs, {});
    QCOMPARE(diffs.size(), size_t(3));
    for (const auto& d : diffs) QCOMPARE(d.maxAbs, 0.0);
  }

  void allcloseSemantics() {
    const auto b = torch::tensor({1.0, 100.0, 0.0}, torch::kDouble);
    const auto a = torch::tensor({1.0 + 1e-6, 100.0 + 5e-3, 2e-5}, torch::kDouble);
    const auto d = run::compareTensors(a, b, {1e-5, 1e-4});
    // |a-b| <= atol + rtol*|b|: 1e-6 ok; 5e-3 > 1e-5 + 1e-2? no, ok; 2e-5 > 1e-5: mismatch.
    QCOMPARE(d.mismatched, int64_t(1));
    QVERIFY(!d.allclose);
    QVERIFY(std::abs(d.maxAbs - 5e-3) < 1e-9);
    QCOMPARE(d.allclose, torch::allclose(a, b, 1e-4, 1e-5));
    QVERIFY(!run::compareTensors(torch::zeros({2}), torch::zeros({3}), {}).note.isEmpty());
  }

  void crossDevice() {
    if (!run::Executor::cudaAvailable()) QSKIP("CUDA is not available here: cross-device compare not run");
    auto doc = open(graft::test::testdata(QStringLiteral("resnet18.pt")));
    run::CompareOptions o;
    o.deviceB = c10::Device(c10::kCUDA);
    o.tol = {1e-3, 1e-3};
    auto r = run::compareRevisions(doc->current(), doc->current(), inputs({QStringLiteral("1x3x224x224")}), o);
    QVERIFY2(r.ok, qPrintable(r.error));
    QVERIFY(r.equal);
    QVERIFY(r.outputs[0].cosine > 0.9999);
  }

  // Runs leave the process able to load and freeze another model (the optimiser guard is scoped).
  void loadAfterRun() {
    auto a = open(runFile("run_cnn.pt"));
    run::Executor ex(a->current());
    QVERIFY(ex.run(inputs({QStringLiteral("1x3x8x8")}), {}).ok);
    a.reset();
    auto r = io::loadFile(graft::test::testdata(QStringLiteral("mobilenet_v2.pt")));
    QVERIFY2(r.ok(), qPrintable(r.error.details));
  }

  void instrumentedBitForBit_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("resnet18") << QStringLiteral("resnet18");
    QTest::newRow("mobilenet_v2") << QStringLiteral("mobilenet_v2");
  }
  void instrumentedBitForBit() {
    QFETCH(QString, model);
    auto doc = open(graft::test::testdata(model + QStringLiteral(".pt")));
    run::Executor ex(doc->current());
    const auto in = inputs({QStringLiteral("1x3x224x224")}, 1);
    auto fast = ex.run(in, {});
    QVERIFY2(fast.ok, qPrintable(fast.error.headline()));
    auto slow = ex.run(in, nodeByNode());
    QVERIFY2(slow.ok, qPrintable(slow.error.headline()));
    QVERIFY(torch::equal(fast.outputs[0].toTensor(), slow.outputs[0].toTensor()));
  }

  void cliCompare() {
    using graft::test::runCli;
    auto same = runCli({QStringLiteral("compare"), runFile("run_cnn.pt"), runFile("run_cnn.pt"), QStringLiteral("--input"), QStringLiteral("2x3x16x16"), QStringLiteral("--json")});
    QVERIFY2(same.exitCode == 0, same.err.constData());
    QCOMPARE(same.json().value(QStringLiteral("equal")).toBool(), true);
    QVERIFY(same.json().value(QStringLiteral("first_divergence")).isNull());
    auto diff = runCli({QStringLiteral("compare"), runFile("run_cnn.pt"), runFile("run_cnn_gelu.pt"), QStringLiteral("--input"), runFile("run_x.npy"), QStringLiteral("--json")});
    QCOMPARE(diff.exitCode, 1);
    const auto j = diff.json();
    QCOMPARE(j.value(QStringLiteral("equal")).toBool(), false);
    const auto out0 = j.value(QStringLiteral("outputs")).toArray().at(0).toObject();
    for (const char* key : {"index", "max_abs", "max_rel", "mismatched", "allclose", "cosine"}) QVERIFY2(out0.contains(QLatin1String(key)), key);
    const auto fd = j.value(QStringLiteral("first_divergence")).toObject();
    QCOMPARE(fd.value(QStringLiteral("op")).toString(), QStringLiteral("aten::gelu"));
    QCOMPARE(fd.value(QStringLiteral("module_path")).toString(), QStringLiteral("act2"));
    QVERIFY(fd.value(QStringLiteral("max_abs")).toDouble() > 0.01);
    auto bad = runCli({QStringLiteral("compare"), runFile("run_cnn.pt"), runFile("run_cnn.pt"), QStringLiteral("--input"), QStringLiteral("2x5x16x16")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("conv1"), bad.err.constData());
    auto noInput = runCli({QStringLiteral("compare"), runFile("run_cnn.pt"), runFile("run_cnn.pt")});
    QCOMPARE(noInput.exitCode, 2);
    QVERIFY2(noInput.err.contains("--input"), noInput.err.constData());
    auto sample = runCli({QStringLiteral("compare"), QStringLiteral("--sample"), QStringLiteral("cnn"), QStringLiteral("--per-node"), QStringLiteral("--json")});
    QVERIFY2(sample.exitCode == 0, sample.err.constData());
    QVERIFY(sample.json().value(QStringLiteral("nodes")).toArray().size() > 10);
  }
};

QTEST_GUILESS_MAIN(TstRun)
#include "tst_run.moc"
