// torch.export programs (.pt2) made by the venv's torch 2.14 (tests/python/make_programs.py):
// Graft opens them without running Python, counts their ops as PyTorch does, groups nodes by
// nn_module_stack with TorchScript's module paths, runs them on their own example shapes, and
// compares them with the TorchScript trace of the same model, names symbolic dimensions as the
// program does, and saves rewrites back as programs. What it cannot read yet is
// refused with a message naming the construct.
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "core/run/compare.h"
#include "core/run/executor.h"
#include "core/io/save.h"
#include "core/edit/edit.h"
#include "core/layout/labels.h"
#include "core/model/graph_view.h"
#include "test_support.h"

#include <torch/serialize.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QRegularExpression>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

QString programFile(const QString& name, const char* suffix) {
  return graft::test::testdata(QStringLiteral("pt2/") + name + QLatin1String(suffix));
}

QJsonObject programReference(const QString& name) { return graft::test::reference(QStringLiteral("pt2/") + name); }

// One row per program that Graft reads today (`supported` in its reference).
void programRows(bool supported) {
  QTest::addColumn<QString>("name");
  QFile f(graft::test::testdata(QStringLiteral("pt2/programs.json")));
  if (!f.open(QIODevice::ReadOnly)) qFatal("the programs fixture did not run (no pt2/programs.json)");
  for (const auto& v : QJsonDocument::fromJson(f.readAll()).array())
    if (programReference(v.toString()).value(QStringLiteral("supported")).toBool() == supported)
      QTest::newRow(qPrintable(v.toString())) << v.toString();
}

QStringList groupPaths(const model::GraphView& view) {
  QStringList paths;
  for (const auto& g : view.groups) paths << g.path;
  return paths;
}

}  // namespace

class TestPt2 : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // A traced model's module paths go through its ModuleLists as the model and its .pt2 name them
  // ("encoder.layer.1.intermediate.dense", not "encoder.1.intermediate.dense").
  void tracedPathsGoThroughContainers() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto made = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_traced_roberta.py"), {dir.path()});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    const auto pathsOf = [&](const QString& file) {
      const auto info = graft::test::runCli({QStringLiteral("info"), dir.filePath(file), QStringLiteral("--json")});
      QSet<QString> paths;
      for (const auto& m : QJsonDocument::fromJson(info.out).object().value(QLatin1String("modules")).toArray())
        paths.insert(m.toObject().value(QLatin1String("path")).toString());
      return paths;
    };
    const QSet<QString> traced = pathsOf(QStringLiteral("roberta.pt"));
    const QSet<QString> exported = pathsOf(QStringLiteral("roberta.pt2"));
    QVERIFY2(traced.contains(QStringLiteral("encoder.layer.1.intermediate.dense")),
             qPrintable(QStringList(traced.begin(), traced.end()).join(QLatin1Char(' '))));
    QVERIFY(!traced.contains(QStringLiteral("encoder.1")));
    for (const char* path : {"encoder.layer.0.attention.self.query", "encoder.layer.1.output.LayerNorm"})
      QVERIFY2(traced.contains(QLatin1String(path)) && exported.contains(QLatin1String(path)), path);
  }

  // An operator this libtorch does not have (a torch.library custom op; transformers' Mixtral
  // experts): the program opens, lays out and diffs with the op as a node of its own, and a run
  // is refused naming the op and what provides it.
  void unknownOperatorsOpenAndRefuseRuns() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto made = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_custom_op_programs.py"),
        {dir.path()});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    const struct {
      const char* file;
      const char* op;
      int count;
    } cases[] = {{"custom_op.pt2", "graftdemo::scale_add", 1}, {"mixtral_moe.pt2", "transformers::grouped_mm_fallback", 4}};
    for (const auto& c : cases) {
      const QString program = dir.filePath(QLatin1String(c.file));
      const auto info = graft::test::runCli({QStringLiteral("info"), program, QStringLiteral("--json")});
      QVERIFY2(info.exitCode == 0, info.err.constData());
      const QJsonObject histogram =
          QJsonDocument::fromJson(info.out).object().value(QLatin1String("op_histogram")).toObject();
      QVERIFY2(histogram.value(QLatin1String(c.op)).toInt() == c.count, info.out.left(600).constData());
      const auto layout = graft::test::runCli({QStringLiteral("layout"), program, QStringLiteral("--expand"),
                                               QStringLiteral("all"), QStringLiteral("--svg"),
                                               dir.filePath(QStringLiteral("out.svg"))});
      QVERIFY2(layout.exitCode == 0, layout.err.constData());
      const auto diff = graft::test::runCli({QStringLiteral("diff"), program, program});
      QVERIFY2(diff.exitCode == 0, diff.err.constData());
      const auto compare = graft::test::runCli({QStringLiteral("compare"), program, program});
      QCOMPARE(compare.exitCode, 2);
      const QString err = QString::fromUtf8(compare.err);
      QVERIFY2(err.contains(QLatin1String(c.op)) && err.contains(QLatin1String("does not have")) &&
                   err.contains(QLatin1String("torch.library")),
               qPrintable(err));
    }
  }

  void opsMatchPyTorch_data() { programRows(true); }
  void opsMatchPyTorch() {
    QFETCH(QString, name);
    const auto r = graft::test::runCli({QStringLiteral("info"), programFile(name, ".pt2"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto info = r.json();
    QCOMPARE(info.value(QStringLiteral("format")).toString(), QStringLiteral("pt2"));
    QCOMPARE(info.value(QStringLiteral("ops")).toInt(), programReference(name).value(QStringLiteral("ops")).toInt());
  }

  // Self-compare on the program's own sample inputs (a dynamic batch too): no --input needed.
  void selfCompareNeedsNoInput_data() { programRows(true); }
  void selfCompareNeedsNoInput() {
    QFETCH(QString, name);
    const QString program = programFile(name, ".pt2");
    const auto r = graft::test::runCli({QStringLiteral("compare"), program, program, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.json().value(QStringLiteral("equal")).toBool());
  }

  // `shapes` reports every tensor value the program's metadata has, with the same shape and dtype.
  void shapesAgreeWithTheMetadata_data() { programRows(true); }
  void shapesAgreeWithTheMetadata() {
    QFETCH(QString, name);
    const auto r = graft::test::runCli({QStringLiteral("shapes"), programFile(name, ".pt2"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QHash<QString, QJsonObject> graft;
    for (const auto& v : r.json().value(QStringLiteral("values")).toArray())
      graft.insert(v.toObject().value(QStringLiteral("name")).toString(), v.toObject());
    const auto expected = programReference(name).value(QStringLiteral("shapes")).toObject();
    QVERIFY(!expected.isEmpty());
    int compared = 0;
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      if (it.key().startsWith(QLatin1String("p_")) || it.key().startsWith(QLatin1String("b_")) ||
          it.key().startsWith(QLatin1String("c_")))
        continue;  // parameters, buffers and constants are folded into their consumers
      QVERIFY2(graft.contains(it.key()), qPrintable(it.key()));
      const auto want = it.value().toObject();
      QCOMPARE(graft[it.key()].value(QStringLiteral("shape")).toArray(), want.value(QStringLiteral("shape")).toArray());
      QCOMPARE(graft[it.key()].value(QStringLiteral("dtype")).toString(), want.value(QStringLiteral("dtype")).toString());
      ++compared;
    }
    QVERIFY(compared > 0);
    // Every symbolic dimension comes with the range the program allows it.
    const auto ranges = programReference(name).value(QStringLiteral("ranges")).toObject();
    QCOMPARE(r.json().value(QStringLiteral("symbols")).toObject(), ranges);
  }

  // Every tensor edge is labelled with its shape from the metadata, a symbolic dimension by name
  // and a dtype other than float32 spelled out.
  void edgesAreLabelledWithShapes() {
    auto label = [](const QString& program) {
      auto loaded = io::loadFile(programFile(program, ".pt2"));
      const auto v = model::GraphView::build(*loaded.document->current());
      for (const auto& e : v.edges)
        if (e.from == model::kNoNode) return layout::edgeLabel(e);  // from the first graph input
      return QString();
    };
    QCOMPARE(label(QStringLiteral("resnet18")), QStringLiteral("1×3×224×224"));
    QCOMPARE(label(QStringLiteral("dynamic_batch")), QStringLiteral("s77×8"));
    QCOMPARE(label(QStringLiteral("bert")), QStringLiteral("1×16 int64"));
  }

  // A TorchScript model records no shapes: one node-by-node run gives them, and they agree with
  // the program's metadata for the same model, op for op.
  void torchScriptShapesComeFromARun() {
    const auto traced = graft::test::runCli({QStringLiteral("shapes"), programFile(QStringLiteral("resnet18"), ".pt"),
                                             QStringLiteral("--input"), QStringLiteral("1x3x224x224"), QStringLiteral("--json")});
    QVERIFY2(traced.exitCode == 0, traced.err.constData());
    QCOMPARE(traced.json().value(QStringLiteral("source")).toString(), QStringLiteral("run"));
    const auto program = graft::test::runCli({QStringLiteral("shapes"), programFile(QStringLiteral("resnet18"), ".pt2"), QStringLiteral("--json")});
    auto shapesOf = [](const QJsonObject& report, const QString& op) {
      QList<QJsonArray> out;
      for (const auto& v : report.value(QStringLiteral("values")).toArray())
        if (v.toObject().value(QStringLiteral("op")).toString() == op) out << v.toObject().value(QStringLiteral("shape")).toArray();
      return out;
    };
    for (const char* op : {"aten::batch_norm", "aten::max_pool2d", "aten::adaptive_avg_pool2d"}) {
      const auto fromRun = shapesOf(traced.json(), QLatin1String(op));
      QVERIFY2(!fromRun.isEmpty(), op);
      QCOMPARE(fromRun, shapesOf(program.json(), QLatin1String(op)));
    }
  }

  // The program and the TorchScript trace of the same model compute the same thing.
  void equalToTheTorchScriptTrace_data() { programRows(true); }
  void equalToTheTorchScriptTrace() {
    QFETCH(QString, name);
    const auto r = graft::test::runCli({QStringLiteral("compare"), programFile(name, ".pt2"), programFile(name, ".pt"),
                                        QStringLiteral("--input"), programFile(name, ".inputs.pt"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData() + r.out.left(1500));
    QVERIFY(r.json().value(QStringLiteral("equal")).toBool());
  }

  // Groups come from nn_module_stack and carry TorchScript's module paths.
  void modulePathsMatchTorchScript() {
    auto program = io::loadFile(programFile(QStringLiteral("resnet18"), ".pt2"));
    QVERIFY2(program.ok(), qPrintable(program.error.message()));
    auto traced = io::loadFile(programFile(QStringLiteral("resnet18"), ".pt"));
    QVERIFY2(traced.ok(), qPrintable(traced.error.message()));
    const QStringList fromProgram = groupPaths(model::GraphView::build(*program.document->current()));
    const QStringList fromTrace = groupPaths(model::GraphView::build(*traced.document->current()));
    for (const char* path : {"layer1.0.conv1", "layer4.1.bn2", "layer2.0.downsample.0", "fc"}) {
      QVERIFY2(fromProgram.contains(QLatin1String(path)), path);
      QVERIFY2(fromTrace.contains(QLatin1String(path)), path);
    }
    // Values keep the fx names that print(ep.graph) shows; nodes know their source line.
    const auto view = model::GraphView::build(*program.document->current());
    const auto conv = std::find_if(view.nodes.begin(), view.nodes.end(),
                                   [](const auto& n) { return n.kind == QLatin1String("aten::conv2d"); });
    QVERIFY(conv != view.nodes.end());
    QCOMPARE(conv->outputs.front().name, QStringLiteral("conv2d"));
    QVERIFY2(conv->sourceFile.endsWith(QStringLiteral("resnet.py")), qPrintable(conv->sourceFile));
    QVERIFY(conv->sourceLine > 0);
    // The line is the model's own (the innermost frame outside PyTorch): ViT's encoder adds the
    // position embedding on the line of vision_transformer.py that says so.
    auto vit = io::loadFile(programFile(QStringLiteral("vit_b_16"), ".pt2"));
    QVERIFY(vit.ok());
    const auto vitView = model::GraphView::build(*vit.document->current());
    const auto add = std::find_if(vitView.nodes.begin(), vitView.nodes.end(), [](const auto& n) {
      return n.kind == QLatin1String("aten::add") && n.modulePath == QLatin1String("encoder");
    });
    QVERIFY(add != vitView.nodes.end());
    QFile source(add->sourceFile);
    QVERIFY2(source.open(QIODevice::ReadOnly), qPrintable(add->sourceFile));
    const QList<QByteArray> lines = source.readAll().split('\n');
    QVERIFY(add->sourceLine >= 1 && add->sourceLine <= lines.size());
    QVERIFY2(lines[add->sourceLine - 1].contains("self.pos_embedding"), lines[add->sourceLine - 1].constData());
  }

  // A module's second call stays its own group through a save: a program keeps torch.export's
  // key for it (relu@1), which stock PyTorch reads back as a second call; a TorchScript file
  // keeps it in Graft's record.
  void moduleCallsSurviveSaving() {
    QTemporaryDir dir;
    for (const char* suffix : {".pt2", ".pt"}) {
      const QString saved = dir.filePath(QStringLiteral("folded") + QLatin1String(suffix));
      const auto r = graft::test::runCli({QStringLiteral("rewrite"), programFile(QStringLiteral("resnet18"), suffix),
                                          QStringLiteral("--rule"), QStringLiteral("fold-conv-bn"), QStringLiteral("-o"), saved});
      QVERIFY2(r.exitCode == 0, r.err.constData());
      auto loaded = io::loadFile(saved);
      QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
      const QStringList paths = groupPaths(model::GraphView::build(*loaded.document->current()));
      QVERIFY2(paths.contains(QStringLiteral("layer1.0.relu")) && paths.contains(QStringLiteral("layer1.0.relu (2)")),
               qPrintable(paths.join(QLatin1Char(' '))));
      QVERIFY(!paths.contains(QStringLiteral("layer1.0.relu (3)")));
    }
    const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/module_calls.py"),
                                           {dir.filePath(QStringLiteral("folded.pt2"))});
    if (py.exitCode != 0) QSKIP(qPrintable(QStringLiteral("no torch to read the program back: ") + QString::fromUtf8(py.err.right(300))));
    const QJsonObject calls = QJsonDocument::fromJson(py.out).object().value(QStringLiteral("calls")).toObject();
    QCOMPARE(calls.value(QStringLiteral("layer1.0.relu")).toInt(), 2);
    QCOMPARE(calls.value(QStringLiteral("layer4.1.relu")).toInt(), 2);
  }

  // The IR view lists a program as print(ep.graph) does, line for line, and the Code view reads as
  // ep.graph_module.code without its `;  x = None` frees. The one difference allowed: an ATen op
  // given a Python number resolves to its .Scalar overload where fx keeps .Tensor (same result).
  // A torch.cond is written as if/else, so for it only the lines outside the cond are compared.
  void irAndCodeReadAsFx_data() { programRows(true); }
  void irAndCodeReadAsFx() {
    QFETCH(QString, name);
    const QString program = programFile(name, ".pt2");
    const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/fx_listing.py"), {program});
    QVERIFY2(py.exitCode == 0, py.err.right(2000).constData());
    const auto graph = graft::test::runCli({QStringLiteral("ir"), program, QStringLiteral("--json")});
    const auto code = graft::test::runCli({QStringLiteral("ir"), program, QStringLiteral("--as"), QStringLiteral("code"), QStringLiteral("--json")});
    QVERIFY2(graph.exitCode == 0 && code.exitCode == 0, graph.err + code.err);
    QCOMPARE(graph.json().value(QStringLiteral("as")).toString(), QStringLiteral("fx"));
    auto lines = [](QString text, bool isCode) {
      QStringList out;
      static const QRegularExpression frees(QStringLiteral(";  .*= None$"));
      for (QString line : text.replace(QStringLiteral(".Scalar]("), QStringLiteral(".Tensor](")).replace(QStringLiteral(".Scalar("), QStringLiteral(".Tensor(")).split(QLatin1Char('\n'))) {
        if (isCode) line.remove(frees);
        if (!line.trimmed().isEmpty()) out << line;
      }
      return out;
    };
    for (const bool isCode : {false, true}) {
      const QString key = isCode ? QStringLiteral("code") : QStringLiteral("graph");
      const QStringList ours = lines((isCode ? code : graph).json().value(QStringLiteral("ir")).toString(), isCode);
      const QStringList theirs = lines(py.json().value(key).toString(), isCode);
      if (name == QLatin1String("cond")) {
        for (const QString& line : theirs)
          if (!line.contains(QLatin1String("cond")) && !line.contains(QLatin1String("graph_0")) && !line.contains(QLatin1String("getitem")))
            QVERIFY2(ours.contains(line), qPrintable(key + QStringLiteral(" lacks: ") + line));
        QVERIFY(ours.join(QLatin1Char('\n')).contains(QLatin1String("true_graph_0")));
        continue;
      }
      QCOMPARE(ours.size(), theirs.size());
      for (int i = 0; i < ours.size(); ++i) QVERIFY2(ours[i] == theirs[i], qPrintable(QStringLiteral("%1 line %2:\n  graft:   %3\n  pytorch: %4").arg(key).arg(i).arg(ours[i], theirs[i])));
    }
  }

  // The graft Python package: what graft.export writes (from an nn.Module, an fx.GraphModule and
  // an ExportedProgram) opens in graft-cli, and graft.show hands the saved file to the GUI.
  void pythonPackageWritesWhatGraftOpens() {
    QTemporaryDir dir;
    const auto py = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_graft_package.py"), {dir.path()});
    QVERIFY2(py.exitCode == 0, py.err.constData());
    const auto report = py.json();
    const auto files = report.value(QStringLiteral("files")).toArray();
    QCOMPARE(files.size(), 3);
    for (const auto& f : files) {
      const auto r = graft::test::runCli({QStringLiteral("info"), f.toString(), QStringLiteral("--json")});
      QVERIFY2(r.exitCode == 0, r.err.constData());
      QCOMPARE(r.json().value(QStringLiteral("ops")).toInt(), 2);  // linear, relu
      QCOMPARE(r.json().value(QStringLiteral("format")).toString(), QStringLiteral("pt2"));
    }
    QCOMPARE(report.value(QStringLiteral("opened")).toString(), report.value(QStringLiteral("shown")).toString());
    QVERIFY(report.value(QStringLiteral("missing_args")).toString().contains(QStringLiteral("example_args")));
  }

  // A rewrite of a program saves as a .pt2 that stock torch.export.load loads and that computes
  // what the original computes: fold-conv-bn (no batch norm left) and remove-dropout.
  void rewriteSavesAPt2ThatPyTorchLoads_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("rule");
    QTest::newRow("resnet18 fold-conv-bn") << "resnet18" << "fold-conv-bn";
    QTest::newRow("mobilenet_v3_small fold-conv-bn") << "mobilenet_v3_small" << "fold-conv-bn";
    QTest::newRow("vit_b_16 remove-dropout") << "vit_b_16" << "remove-dropout";
    QTest::newRow("bert remove-dropout") << "bert" << "remove-dropout";
    QTest::newRow("resnet18_decomposed fold-conv-bn") << "resnet18_decomposed" << "fold-conv-bn";
    // Eight matches, each reading the one before it (a block's result is the next one's input).
    QTest::newRow("resnet18_decomposed fuse-add-relu") << "resnet18_decomposed" << "fuse-add-relu";
  }
  void rewriteSavesAPt2ThatPyTorchLoads() {
    QFETCH(QString, name);
    QFETCH(QString, rule);
    QTemporaryDir dir;
    const QString out = dir.filePath(name + QStringLiteral(".rewritten.pt2"));
    const auto r = graft::test::runCli({QStringLiteral("rewrite"), programFile(name, ".pt2"), QStringLiteral("--rule"), rule,
                                        QStringLiteral("-o"), out, QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const int opsAfter = r.json().value(QStringLiteral("ops_after")).toInt();
    const auto check = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_pt2.py"),
        {programFile(name, ".pt2"), out, programFile(name, ".inputs.pt"), QStringLiteral("--rtol"), QStringLiteral("1e-4")});
    QVERIFY2(check.exitCode == 0, check.out + check.err.right(2000));
    const auto verdict = check.json();
    QCOMPARE(verdict.value(QStringLiteral("ops")).toInt(), opsAfter);
    const auto hist = verdict.value(QStringLiteral("op_histogram")).toObject();
    if (rule == QLatin1String("fold-conv-bn")) {
      QVERIFY(!hist.contains(QStringLiteral("aten.batch_norm.default")));
      QVERIFY(!hist.contains(QStringLiteral("aten._native_batch_norm_legit_no_training.default")));
      QVERIFY(opsAfter < programReference(name).value(QStringLiteral("ops")).toInt());
    }
    if (rule == QLatin1String("remove-dropout")) QVERIFY(!hist.contains(QStringLiteral("aten.dropout.default")));
    if (rule == QLatin1String("fuse-add-relu")) QCOMPARE(hist.value(QStringLiteral("aten._add_relu.Tensor")).toInt(), 8);
    // What was saved opens in Graft again, as a program.
    const auto reopened = graft::test::runCli({QStringLiteral("info"), out, QStringLiteral("--json")});
    QVERIFY2(reopened.exitCode == 0, reopened.err.constData());
    QCOMPARE(reopened.json().value(QStringLiteral("ops")).toInt(), opsAfter);
  }

  // One edit of a program (a dropout bypassed, a constant changed) saves as a .pt2 that stock
  // torch.export.load loads and that computes what Graft's run of the edited revision computes.
  void singleEditSavesWhatGraftRuns_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("bypass dropout") << "bypass";
    QTest::newRow("edit layer_norm eps") << "constant";
  }
  void singleEditSavesWhatGraftRuns() {
    QFETCH(QString, kind);
    auto loaded = io::loadFile(programFile(QStringLiteral("bert"), ".pt2"));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message()));
    auto& doc = *loaded.document;
    const auto view = model::GraphView::build(*doc.current());
    const QString op = kind == QLatin1String("bypass") ? QStringLiteral("dropout") : QStringLiteral("layer_norm");
    const auto target = std::find_if(view.nodes.begin(), view.nodes.end(), [&](const auto& n) { return n.op == op; });
    QVERIFY(target != view.nodes.end());
    const edit::Edit change = kind == QLatin1String("bypass") ? edit::Edit(edit::BypassNode{target->id, 0})
                                                              : edit::Edit(edit::EditConstant{target->id, QStringLiteral("eps"), QStringLiteral("0.01")});
    const auto edited = edit::apply(change, *doc.current(), doc.ids());
    QVERIFY2(edited.ok(), qPrintable(edited.error));
    graft::core::edit::Session(doc).commitBuilt(edited.revision);

    const auto inputs = io::parseInputs({programFile(QStringLiteral("bert"), ".inputs.pt")}, 0);
    QVERIFY2(inputs.inputs, qPrintable(inputs.error));
    run::Executor executor(doc.current());
    const auto result = executor.run(*inputs.inputs, {});
    QVERIFY2(result.ok, qPrintable(result.error.headline()));
    QTemporaryDir dir;
    const QString expect = dir.filePath(QStringLiteral("graft_outputs.pt"));
    {
      std::vector<c10::IValue> tensors;  // a plain tuple, which torch.load's weights-only reader takes
      for (const auto& v : result.outputs)
        if (v.isTensor()) tensors.push_back(v);
      const std::vector<char> bytes = torch::pickle_save(c10::ivalue::Tuple::create(std::move(tensors)));
      QFile f(expect);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bytes.data(), qint64(bytes.size()));
    }
    const QString saved = dir.filePath(QStringLiteral("edited.pt2"));
    const auto written = io::saveAs(doc, doc.current(), saved);
    QVERIFY2(written.ok, qPrintable(written.error));
    const auto check = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_pt2.py"),
        {programFile(QStringLiteral("bert"), ".pt2"), saved, programFile(QStringLiteral("bert"), ".inputs.pt"), QStringLiteral("--rtol"),
         QStringLiteral("1e-5"), QStringLiteral("--expect"), expect});
    QVERIFY2(check.exitCode == 0, check.out + check.err.right(2000));
    // The edit is in the saved program: without it, the original computes something else (eps)
    // or holds one dropout more (bypass).
    const int dropoutsBefore = view.opHistogram().value(QStringLiteral("aten::dropout"));
    const auto hist = check.json().value(QStringLiteral("op_histogram")).toObject();
    if (kind == QLatin1String("bypass")) QCOMPARE(hist.value(QStringLiteral("aten.dropout.default")).toInt(), dropoutsBefore - 1);
    else {
      const auto differs = graft::test::runPython(
          qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_pt2.py"),
          {programFile(QStringLiteral("bert"), ".pt2"), saved, programFile(QStringLiteral("bert"), ".inputs.pt")});
      QCOMPARE(differs.exitCode, 1);
    }
  }

  // The program a model was opened from is never overwritten, and only a program saves as one.
  void savingRefusesWhatWouldLoseWork() {
    const QString program = programFile(QStringLiteral("resnet18"), ".pt2");
    const auto same = graft::test::runCli({QStringLiteral("rewrite"), program, QStringLiteral("--rule"),
                                           QStringLiteral("fold-conv-bn"), QStringLiteral("-o"), program});
    QCOMPARE(same.exitCode, 2);
    QTemporaryDir dir;
    const auto fromTorchScript = graft::test::runCli({QStringLiteral("rewrite"), programFile(QStringLiteral("resnet18"), ".pt"),
                                                      QStringLiteral("--rule"), QStringLiteral("fold-conv-bn"), QStringLiteral("-o"),
                                                      dir.filePath(QStringLiteral("x.pt2"))});
    QCOMPARE(fromTorchScript.exitCode, 2);
    QVERIFY2(fromTorchScript.err.contains("only a model opened from a .pt2"), fromTorchScript.err.constData());
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("x.pt2"))));
  }

  // A program Graft cannot read yet (torch.while_loop) is refused with the construct named.
  void unsupportedIsNamed_data() { programRows(false); }
  void unsupportedIsNamed() {
    QFETCH(QString, name);
    const auto r = graft::test::runCli({QStringLiteral("info"), programFile(name, ".pt2"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("cannot read yet") && r.err.contains("higher_order.while_loop"), r.err.constData());
  }

  // An AOTInductor package (tests/python/make_aoti_package.py) holds compiled code, not a graph:
  // told apart, with the way to the program it was compiled from.
  void aotInductorPackageIsToldApart() {
    const QString path = QDir(qEnvironmentVariable("GRAFT_SOURCE_DIR")).filePath(QStringLiteral("tests/data/programs/aoti_linear.pt2"));
    const auto loaded = io::loadFile(path);
    QVERIFY(!loaded.ok());
    QVERIFY2(loaded.error.headline.contains(QLatin1String("AOTInductor package")), qPrintable(loaded.error.headline));
    QVERIFY2(loaded.error.hint.contains(QLatin1String("torch.export.save")), qPrintable(loaded.error.hint));
    const auto r = graft::test::runCli({QStringLiteral("info"), path, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("AOTInductor package"), r.err.constData());
  }

  // Programs that compute with their symbolic sizes (aten.sym_size.int, Python arithmetic on
  // SymInts) open, count their ops as torch.export does, and give stock PyTorch's outputs at two
  // sizes of the dynamic dimension.
  void symbolicSizesRun_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("view_dyn") << QStringLiteral("view_dyn");
    QTest::newRow("arith_dyn") << QStringLiteral("arith_dyn");
    QTest::newRow("llama_dyn") << QStringLiteral("llama_dyn");
  }
  void symbolicSizesRun() {
    QFETCH(QString, name);
    const QDir dir(dynamicPrograms());
    QVERIFY(dir.exists(name + QStringLiteral(".pt2")));
    QFile refFile(dir.filePath(name + QStringLiteral(".ref.json")));
    QVERIFY(refFile.open(QIODevice::ReadOnly));
    const QJsonObject ref = QJsonDocument::fromJson(refFile.readAll()).object();
    auto loaded = io::loadFile(dir.filePath(name + QStringLiteral(".pt2")));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message() + QStringLiteral(": ") + loaded.error.details));
    QCOMPARE(model::GraphView::build(*loaded.document->current()).programOps, ref.value(QStringLiteral("ops")).toInt());
    auto tensorFile = [](const QString& path) {
      QFile f(path);
      if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
      const QByteArray bytes = f.readAll();
      return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toTensor();
    };
    run::Executor executor(loaded.document->current());
    for (const auto& size : ref.value(QStringLiteral("sizes")).toArray()) {
      const QString stem = dir.filePath(QStringLiteral("%1.%2").arg(name).arg(size.toInt()));
      model::InputSet inputs;
      inputs.values.push_back(tensorFile(stem + QStringLiteral(".in.pt")));
      const at::Tensor expected = tensorFile(stem + QStringLiteral(".out.pt"));
      for (bool instrumented : {false, true}) {
        run::RunOptions options;
        options.instrumented = instrumented;
        const auto r = executor.run(inputs, options);
        QVERIFY2(r.ok, qPrintable(r.error.headline()));
        QVERIFY2(torch::allclose(r.outputs.at(0).toTensor(), expected, 1e-4, 1e-5), qPrintable(stem));
      }
    }
    if (name != QLatin1String("view_dyn")) return;
    // Ranges belong to their program: view_dyn8 (same symbol name, at most 8 rows) opened beside
    // it does not narrow view_dyn's, and refuses 13 rows itself.
    auto small = io::loadFile(dir.filePath(QStringLiteral("view_dyn8.pt2")));
    QVERIFY(small.ok());
    QStringList smallSymbols = small.document->current()->symbolRanges().keys();
    QStringList loadedSymbols = loaded.document->current()->symbolRanges().keys();
    smallSymbols.sort();
    loadedSymbols.sort();
    QCOMPARE(smallSymbols, loadedSymbols);
    model::InputSet thirteen;
    thirteen.values.push_back(torch::randn({13, 8}));
    QVERIFY(executor.run(thirteen, {}).ok);
    const auto refused = run::Executor(small.document->current()).run(thirteen, {});
    QVERIFY(!refused.ok);
    QVERIFY2(refused.error.message.contains(QStringLiteral("≤ 8")), qPrintable(refused.error.message));
  }

  // A dynamic program saves as dynamic: after a pass (and a rewrite that adds nodes), stock
  // torch.export.load reads the saved program with symbolic input sizes and the source's ranges,
  // its module gives the original's outputs at two sizes, and every value's metadata (shapes,
  // SymInts) holds at both sizes. Graft reads the ranges back as they were.
  void dynamicProgramSavesAsDynamic_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("change");
    const QStringList dce{QStringLiteral("--pass"), QStringLiteral("dead-code-elimination")};
    QTest::newRow("view_dyn") << QStringLiteral("view_dyn") << dce;
    QTest::newRow("arith_dyn") << QStringLiteral("arith_dyn") << dce;
    QTest::newRow("llama_dyn") << QStringLiteral("llama_dyn") << dce;
    QTest::newRow("llama_dyn silu-decompose") << QStringLiteral("llama_dyn") << QStringList{QStringLiteral("--rule"), QStringLiteral("silu-decompose")};
    // Size lists a rule computes (aten::size(x), a slice, a concatenation) on a dynamic batch.
    QTest::newRow("linear_relu_dyn fuse-linear-relu") << QStringLiteral("linear_relu_dyn")
                                                      << QStringList{QStringLiteral("--rule"), QStringLiteral("fuse-linear-relu")};
    // Elementwise ops a rule adds, sized by the broadcast of their inputs' symbolic sizes.
    QTest::newRow("bart_dyn gelu-decompose") << QStringLiteral("bart_dyn") << QStringList{QStringLiteral("--rule"), QStringLiteral("gelu-decompose")};
  }
  void dynamicProgramSavesAsDynamic() {
    QFETCH(QString, name);
    QFETCH(QStringList, change);
    const QDir dir(dynamicPrograms());
    const QString program = dir.filePath(name + QStringLiteral(".pt2"));
    QTemporaryDir out;
    const QString saved = out.filePath(QStringLiteral("saved.pt2"));
    const auto rw = graft::test::runCli(QStringList{QStringLiteral("rewrite"), program} + change +
                                        QStringList{QStringLiteral("-o"), saved, QStringLiteral("--json")});
    QVERIFY2(rw.exitCode == 0, rw.err.constData());
    if (change.contains(QStringLiteral("--rule"))) {  // the rewrite added nodes the source's metadata never saw
      const auto applied = rw.json().value(QStringLiteral("applied")).toArray();
      QVERIFY(!applied.isEmpty() && applied.first().toObject().value(QStringLiteral("matches")).toInt() > 0);
    }

    QFile refFile(dir.filePath(name + QStringLiteral(".ref.json")));
    QVERIFY(refFile.open(QIODevice::ReadOnly));
    const QJsonArray sizes = QJsonDocument::fromJson(refFile.readAll()).object().value(QStringLiteral("sizes")).toArray();
    QCOMPARE(sizes.size(), 2);
    QStringList args{saved};
    for (const auto& size : sizes) {
      const QString stem = dir.filePath(QStringLiteral("%1.%2").arg(name).arg(size.toInt()));
      args << stem + QStringLiteral(".in.pt") << stem + QStringLiteral(".out.pt");
    }
    const auto check = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_dynamic_save.py"), args);
    QVERIFY2(check.exitCode == 0, check.out + check.err.right(2000));
    const QJsonObject verdict = check.json();
    QVERIFY(verdict.value(QStringLiteral("close")).toBool());
    const auto runs = verdict.value(QStringLiteral("runs")).toArray();
    QCOMPARE(runs.size(), 2);
    QVERIFY(runs[0].toObject().value(QStringLiteral("input_shape")) != runs[1].toObject().value(QStringLiteral("input_shape")));
    for (const auto& r : runs) {
      const QJsonObject run = r.toObject();
      qInfo("%s at %s: max abs diff %g", qPrintable(name), QJsonDocument(run.value(QStringLiteral("input_shape")).toArray()).toJson(QJsonDocument::Compact).constData(),
            run.value(QStringLiteral("max_abs")).toDouble());
      QVERIFY(run.value(QStringLiteral("meta_checked")).toInt() > 0);
      QVERIFY2(run.value(QStringLiteral("meta_mismatches")).toArray().isEmpty(),
               QJsonDocument(run.value(QStringLiteral("meta_mismatches")).toArray()).toJson(QJsonDocument::Compact).constData());
    }
    const auto symbolicInputs = verdict.value(QStringLiteral("symbolic_inputs")).toArray();
    QVERIFY(!symbolicInputs.isEmpty());
    for (const auto& input : symbolicInputs) QVERIFY(input.toBool());
    QVERIFY(verdict.value(QStringLiteral("symbolic_values")).toInt() > 0);

    // The ranges are the source's, in stock PyTorch and in Graft.
    auto source = io::loadFile(program);
    QVERIFY(source.ok());
    const model::SymbolRanges ranges = source.document->current()->symbolRanges();
    QVERIFY(!ranges.isEmpty());
    QJsonObject expected;
    for (auto it = ranges.begin(); it != ranges.end(); ++it)
      expected.insert(it.key(), QJsonArray{it->min, it->max ? QJsonValue(*it->max) : QJsonValue()});
    QCOMPARE(verdict.value(QStringLiteral("range_constraints")).toObject(), expected);
    auto reopened = io::loadFile(saved);
    QVERIFY2(reopened.ok(), qPrintable(reopened.error.message() + QStringLiteral(": ") + reopened.error.details));
    const model::SymbolRanges back = reopened.document->current()->symbolRanges();
    QCOMPARE(back.size(), ranges.size());
    for (auto it = ranges.begin(); it != ranges.end(); ++it) {
      QVERIFY2(back.contains(it.key()), qPrintable(it.key()));
      QCOMPARE(back.value(it.key()).min, it->min);
      QVERIFY(back.value(it.key()).max == it->max);
    }
  }

  // A size the save cannot write symbolically is refused, not written as the number it had on the
  // sample inputs: nonzero's row count follows the data (torch.export would make it an unbacked
  // symbol), and a second run at another size shows it changes.
  void dynamicSaveRefusesASizeItCannotWrite() {
    QTemporaryDir out;
    const QString rule = out.filePath(QStringLiteral("nonzero.rule"));
    {
      QFile f(rule);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("id: linear-plus-nonzero-sum\n"
              "title: linear plus the sum of its nonzero indices\n"
              "[pattern]\n"
              "graph(%x, %w, %b):\n"
              "  %r = aten::linear(%x, %w, %b)\n"
              "  return (%r)\n"
              "[replacement]\n"
              "graph(%x, %w, %b):\n"
              "  %y = aten::linear(%x, %w, %b)\n"
              "  %z = aten::nonzero(%y)\n"
              "  %none : NoneType = prim::Constant()\n"
              "  %c = aten::sum(%z, %none)\n"
              "  %one : int = prim::Constant[value=1]()\n"
              "  %r = aten::add(%y, %c, %one)\n"
              "  return (%r)\n");
    }
    const QString saved = out.filePath(QStringLiteral("saved.pt2"));
    const auto rw = graft::test::runCli({QStringLiteral("rewrite"), QDir(dynamicPrograms()).filePath(QStringLiteral("arith_dyn.pt2")),
                                         QStringLiteral("--rule"), rule, QStringLiteral("-o"), saved});
    QCOMPARE(rw.exitCode, 2);
    QVERIFY2(rw.err.contains("aten::nonzero") && rw.err.contains("changes with the input sizes") && rw.err.contains("TorchScript (.pt)"),
             rw.err.constData());
    QVERIFY(!QFileInfo::exists(saved));
    // --dry-run with -o does not hide it: the same refusal, and nothing written.
    const auto dry = graft::test::runCli({QStringLiteral("rewrite"), QDir(dynamicPrograms()).filePath(QStringLiteral("arith_dyn.pt2")),
                                          QStringLiteral("--rule"), rule, QStringLiteral("--dry-run"), QStringLiteral("-o"), saved});
    QCOMPARE(dry.exitCode, 2);
    QVERIFY2(dry.err.contains("aten::nonzero") && dry.err.contains("TorchScript (.pt)"), dry.err.constData());
    QVERIFY(!QFileInfo::exists(saved));
  }

  // Size computations are attributes of the op they size, written with the program's symbols
  // (view's size [s77, -1, 4]), not boxes; a list of tensors built for cat is cat's inputs; the
  // nodes torch.export marks as called by no module sit in the model itself.
  void sizeComputationsAreAttributes() {
    const QDir dir(dynamicPrograms());
    auto viewDyn = io::loadFile(dir.filePath(QStringLiteral("view_dyn.pt2")));
    QVERIFY(viewDyn.ok());
    const auto v = model::GraphView::build(*viewDyn.document->current(), *viewDyn.document);
    const QString batch = v.graphInputs.value(0).type.section(QLatin1Char('['), 1).section(QLatin1Char(','), 0, 0);
    QVERIFY2(batch.startsWith(QLatin1Char('s')), qPrintable(v.graphInputs.value(0).type));
    int views = 0;
    for (const auto& n : v.nodes) {
      QVERIFY2(n.kind != QLatin1String("aten::sym_size") && n.kind != QLatin1String("prim::ListConstruct"), qPrintable(n.kind));
      if (n.kind != QLatin1String("aten::view")) continue;
      ++views;
      for (const auto& a : n.attributes)
        if (a.name == QLatin1String("size")) QCOMPARE(a.value, QStringLiteral("[%1, -1, 4]").arg(batch));
    }
    QCOMPARE(views, 1);
    auto llama = io::loadFile(dir.filePath(QStringLiteral("llama_dyn.pt2")));
    QVERIFY(llama.ok());
    const auto lv = model::GraphView::build(*llama.document->current(), *llama.document);
    int cats = 0;
    for (const auto& n : lv.nodes) {
      QVERIFY2(!n.modulePath.contains(QLatin1String("_empty_nn_module_stack")), qPrintable(n.modulePath));
      QVERIFY(n.kind != QLatin1String("prim::ListConstruct") && n.kind != QLatin1String("aten::sym_size"));
      if (n.kind != QLatin1String("aten::cat")) continue;
      ++cats;
      QVERIFY(n.inputs.size() >= 2);
      QCOMPARE(n.inputs[0].name, QStringLiteral("tensors[0]"));
      const auto into = std::count_if(lv.edges.begin(), lv.edges.end(), [&](const model::ViewEdge& e) { return e.to == n.id; });
      QCOMPARE(int(into), int(n.inputs.size()));
    }
    QVERIFY(cats > 0);
    for (const auto& g : lv.groups) QVERIFY2(!g.path.contains(QLatin1String("_empty_nn_module_stack")), qPrintable(g.path));
  }

  // Keyword arguments, dicts and nested results: the sample inputs are flattened as the program's
  // in_spec says, every flat input and output is named by its path, and the outputs are
  // ep.module()'s; compare needs no --input and names the outputs.
  void structuredInputsAndOutputs_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("kwargs and a dict") << QStringLiteral("kw");
    QTest::newRow("dict of lists out") << QStringLiteral("dictout");
    QTest::newRow("bert, mask by keyword") << QStringLiteral("bert_kw");
    QTest::newRow("keyword fixed at export") << QStringLiteral("kwconst");
  }
  void structuredInputsAndOutputs() {
    QFETCH(QString, name);
    const QDir dir(structuredPrograms());
    QVERIFY(dir.exists(name + QStringLiteral(".pt2")));
    QFile refFile(dir.filePath(name + QStringLiteral(".ref.json")));
    QVERIFY(refFile.open(QIODevice::ReadOnly));
    const QJsonObject ref = QJsonDocument::fromJson(refFile.readAll()).object();
    const auto names = [](const QJsonArray& a) {
      QStringList out;
      for (const auto& v : a) out << v.toString();
      return out;
    };
    const QString program = dir.filePath(name + QStringLiteral(".pt2"));
    auto loaded = io::loadFile(program);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message() + QStringLiteral(": ") + loaded.error.details));
    const auto& doc = *loaded.document;
    QCOMPARE(doc.inputNames(), names(ref.value(QStringLiteral("inputs")).toArray()));
    QCOMPARE(doc.outputNames(), names(ref.value(QStringLiteral("outputs")).toArray()));
    QVERIFY(doc.exampleInputs());
    QCOMPARE(int(doc.exampleInputs()->values.size()), doc.inputNames().size());
    // The diagram's terminals carry the same paths; the tuple the graph returns is no box of its own.
    const auto view = model::GraphView::build(*doc.current(), doc);
    QCOMPARE(view.graphOutputs.size(), doc.outputNames().size());
    // A port named for what it is (torch.export's "output") says so once.
    const auto label = [](const QString& kind, const QString& name) {
      return name == kind ? kind : kind + QLatin1Char(' ') + name;
    };
    for (int i = 0; i < view.graphOutputs.size(); ++i)
      QCOMPARE(layout::terminalLabel(view, false, i).front(), label(QStringLiteral("output"), doc.outputNames()[i]));
    for (int i = 0; i < view.graphInputs.size(); ++i)
      QCOMPARE(layout::terminalLabel(view, true, i).front(), label(QStringLiteral("input"), doc.inputNames()[i]));
    for (const auto& n : view.nodes) QVERIFY(n.kind != QLatin1String("prim::TupleConstruct") || n.blockDepth > 0);

    QFile outFile(dir.filePath(name + QStringLiteral(".out.pt")));
    QVERIFY(outFile.open(QIODevice::ReadOnly));
    const QByteArray bytes = outFile.readAll();
    const auto expected = torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toList();
    run::Executor executor(doc.current());
    for (bool instrumented : {false, true}) {
      run::RunOptions options;
      options.instrumented = instrumented;
      const auto r = executor.run(*doc.exampleInputs(), options);
      QVERIFY2(r.ok, qPrintable(r.error.headline()));
      const auto flat = run::flattenTensors(r.outputs);
      QCOMPARE(flat.size(), expected.size());
      for (size_t i = 0; i < flat.size(); ++i)
        QVERIFY2(torch::allclose(flat[i], expected.get(i).toTensor(), 1e-4, 1e-5), qPrintable(doc.outputNames().value(int(i))));
    }
    const auto cli = graft::test::runCli({QStringLiteral("compare"), program, QStringLiteral("--json")});
    QVERIFY2(cli.exitCode == 0, cli.err.constData());
    QStringList shown;
    for (const auto& o : cli.json().value(QStringLiteral("outputs")).toArray()) shown << o.toObject().value(QStringLiteral("name")).toString();
    QCOMPARE(shown, doc.outputNames());
    const auto profiled = graft::test::runCli({QStringLiteral("profile"), program, QStringLiteral("--runs"), QStringLiteral("2")});
    QVERIFY2(profiled.exitCode == 0, profiled.err.constData());
    if (name == QLatin1String("dictout")) {  // inputs given on the command line, one per flat input
      const auto given = graft::test::runCli({QStringLiteral("compare"), program, QStringLiteral("--input"), QStringLiteral("2x8"),
                                              QStringLiteral("--input"), QStringLiteral("2x8")});
      QVERIFY2(given.exitCode == 0, given.err.constData());
      QVERIFY2(given.out.contains("output logits"), given.out.constData());
    }
  }

  // One input of a program with a dict and a keyword argument given by its path (d.a); the others
  // keep the program's sample inputs, and compare runs on them.
  void namedInputsOfAProgram() {
    const QString program = QDir(structuredPrograms()).filePath(QStringLiteral("kw.pt2"));
    auto loaded = io::loadFile(program);
    QVERIFY(loaded.ok());
    const auto& doc = *loaded.document;
    QVERIFY(doc.exampleInputs());
    const auto named = io::inputsFor(doc, {QStringLiteral("d.a=2x8")}, 3);
    QVERIFY2(named.inputs, qPrintable(named.error));
    const auto& given = named.inputs->values;
    const auto& sample = doc.exampleInputs()->values;
    QCOMPARE(given.size(), sample.size());
    const int at = int(doc.inputNames().indexOf(QStringLiteral("d.a")));
    QVERIFY(at >= 0);
    for (size_t i = 0; i < given.size(); ++i)
      QCOMPARE(torch::equal(given[i].toTensor(), sample[i].toTensor()), int(i) != at);
    QVERIFY(torch::equal(given[size_t(at)].toTensor(), io::parseInputs({QStringLiteral("2x8")}, 3).inputs->values[0].toTensor()));
    const auto cli = graft::test::runCli({QStringLiteral("compare"), program, program, QStringLiteral("--input"), QStringLiteral("d.a=2x8"),
                                          QStringLiteral("--json")});
    QVERIFY2(cli.exitCode == 0, cli.err.constData());
    const auto wrong = graft::test::runCli({QStringLiteral("compare"), program, program, QStringLiteral("--input"), QStringLiteral("d.c=2x8")});
    QCOMPARE(wrong.exitCode, 2);
    QVERIFY2(wrong.err.contains("its inputs are x, d.a, d.b, scale"), wrong.err.constData());
  }

  // A save keeps each placeholder's kind and state name: parameters, a persistent and a
  // non-persistent buffer, a lifted constant; stock PyTorch sees the same signature and state dict.
  void placeholderKindsSurviveASave() {
    QString why;
    const auto j = signaturesAfterASave(QStringLiteral("state.pt2"), &why);
    QVERIFY2(why.isEmpty(), qPrintable(why));
    QCOMPARE(j.value(QStringLiteral("saved")).toArray(), j.value(QStringLiteral("original")).toArray());
    QCOMPARE(j.value(QStringLiteral("state_dict_saved")).toArray(), j.value(QStringLiteral("state_dict_original")).toArray());
    QVERIFY(j.value(QStringLiteral("outputs_equal")).toBool());
    QCOMPARE(j.value(QStringLiteral("original")).toArray().size(), 5);
  }

  // A keyword fixed at export (use_cache=False) is a constant input between two tensor inputs: the
  // program opens, and a save keeps it where it was, so stock torch.export.load reads the saved
  // program and its module() gives the original's outputs.
  void constantInputSurvivesASave() {
    QString why;
    const auto j = signaturesAfterASave(QStringLiteral("kwconst.pt2"), &why);
    QVERIFY2(why.isEmpty(), qPrintable(why));
    const auto users = j.value(QStringLiteral("user_inputs_original")).toArray();
    QCOMPARE(users.size(), 3);
    QCOMPARE(users.at(1).toObject().value(QStringLiteral("arg")).toString(), QStringLiteral("ConstantArgument"));
    QCOMPARE(j.value(QStringLiteral("user_inputs_saved")).toArray(), users);
    QVERIFY(j.value(QStringLiteral("outputs_equal")).toBool());
  }

 private:
  // Stock PyTorch's view (tests/python/check_signature.py) of structured program `name` and of
  // its save after dead-code elimination; empty with `why` set when either step fails.
  static QJsonObject signaturesAfterASave(const QString& name, QString* why) {
    const QDir dir(structuredPrograms());
    QTemporaryDir out;
    const QString saved = out.filePath(name);
    const auto rw = graft::test::runCli({QStringLiteral("rewrite"), dir.filePath(name), QStringLiteral("--pass"),
                                         QStringLiteral("dead-code-elimination"), QStringLiteral("-o"), saved});
    if (rw.exitCode != 0) {
      *why = QString::fromUtf8(rw.err);
      return {};
    }
    const auto py = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_signature.py"),
                                           {dir.filePath(name), saved});
    if (py.exitCode != 0) {
      *why = QString::fromUtf8(py.err);
      return {};
    }
    return QJsonDocument::fromJson(py.out).object();
  }

  // tests/python/make_dynamic_programs.py's programs and their outputs at two sizes, made once per run.
  static QString dynamicPrograms() {
    static QTemporaryDir dir;
    static bool made = false;
    if (!made) {
      const auto r = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_dynamic_programs.py"), {dir.path()});
      if (r.exitCode != 0) qWarning("%s", r.err.constData());
      made = r.exitCode == 0;
    }
    return dir.path();
  }

  // tests/python/make_structured_programs.py's programs, made once per run.
  static QString structuredPrograms() {
    static QTemporaryDir dir;
    static bool made = false;
    if (!made) {
      const auto r = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_structured_programs.py"), {dir.path()});
      if (r.exitCode != 0) qWarning("%s", r.err.constData());
      made = r.exitCode == 0;
    }
    return dir.path();
  }
};

QTEST_GUILESS_MAIN(TestPt2)
#include "tst_pt2.moc"
