// Any program on any device, higher-order ops and precision runs of real programs
// (tests/python/make_device_programs.py):
// - a .pt2 whose graph holds cuda device constants (its JSON edited as a GPU export reads, with
//   move_to_device_pass's string spelling too) and a TorchScript archive with cuda:0 constants
//   open and run on the CPU with the CPU original's stock outputs, and the run says it remapped;
// - a module whose forward holds torch.no_grad() and torch.autocast regions, exported in grad
//   mode with a dynamic batch, opens with torch.export's op count, runs at two sizes with stock
//   outputs (the autocast region at bfloat16, as torch runs it) and saves back as a program
//   stock PyTorch runs;
// - each higher-order region (no_grad, autocast, invoke_subgraph) is a group of the module tree,
//   under the module that holds it, with its body's ops inside it (info --json's modules too);
// - a function marked nested_compile_region, called by two modules (two invoke_subgraph calls of
//   one body), opens with torch.export's op count, runs with stock outputs, and a rule rewrites
//   both calls' bodies and saves a program stock PyTorch runs with the same outputs;
// - transformers' OPT (as exported and decomposed), GPT-NeoX, Falcon, Gemma, ALBERT and a
//   decomposed DistilBERT give a verdict at --dtype-b bfloat16 and float16, and say what they
//   relaxed.
#include "core/io/load.h"
#include "core/io/save.h"
#include "core/model/graph_view.h"
#include "core/run/compare.h"
#include "core/run/device_remap.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "test_support.h"

#include <torch/serialize.h>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace graft::core;

namespace {

c10::IValue readSaved(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
  const QByteArray bytes = f.readAll();
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
}

std::vector<at::Tensor> tensorList(const c10::IValue& list) {
  std::vector<at::Tensor> out;
  for (const auto& v : list.toListRef()) out.push_back(v.toTensor());
  return out;
}

QJsonObject readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace

class TestDevices : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const auto r = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_device_programs.py"), {dir_.path()});
    QVERIFY2(r.exitCode == 0, r.err.right(4000).constData());
  }

  // Opens, counts as torch.export does, and gives stock PyTorch's outputs at both sizes on both
  // run paths; `note` is what the run says about the device it remapped.
  void runsOnTheCpu_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("note");
    QTest::newRow("pt2 with cuda constants") << QStringLiteral("device_cuda.pt2") << QStringLiteral("device_cuda")
                                             << QStringLiteral("program exported for cuda, run on cpu");
    QTest::newRow("TorchScript with cuda:0 constants") << QStringLiteral("device_cuda_ts.pt") << QStringLiteral("device_cuda_ts")
                                                       << QStringLiteral("program exported for cuda:0, run on cpu");
    QTest::newRow("no_grad and autocast regions") << QStringLiteral("hop_regions.pt2") << QStringLiteral("hop_regions") << QString();
    QTest::newRow("invoke_subgraph") << QStringLiteral("invoke_subgraph.pt2") << QStringLiteral("invoke_subgraph") << QString();
  }
  void runsOnTheCpu() {
    QFETCH(QString, file);
    QFETCH(QString, name);
    QFETCH(QString, note);
    const QDir dir(dir_.path());
    const QJsonObject ref = readJson(dir.filePath(name + QStringLiteral(".ref.json")));
    auto loaded = io::loadFile(dir.filePath(file));
    QVERIFY2(loaded.ok(), qPrintable(loaded.error.message() + QStringLiteral(": ") + loaded.error.details));
    const auto& doc = *loaded.document;
    if (file.endsWith(QLatin1String(".pt2")))
      QCOMPARE(model::GraphView::build(*doc.current()).programOps, ref.value(QStringLiteral("ops")).toInt());
    QCOMPARE(run::deviceRemapNote(*doc.current(), c10::Device(c10::kCPU)), note);

    run::Executor executor(doc.current());
    const auto sizes = ref.value(QStringLiteral("sizes")).toArray();
    QCOMPARE(sizes.size(), 2);
    for (int i = 0; i < sizes.size(); ++i) {
      const QString stem = dir.filePath(QStringLiteral("%1.%2").arg(name).arg(i));
      model::InputSet inputs;
      for (const auto& t : tensorList(readSaved(stem + QStringLiteral(".in.pt")))) inputs.values.push_back(t);
      const auto expected = tensorList(readSaved(stem + QStringLiteral(".out.pt")));
      for (bool instrumented : {false, true}) {
        run::RunOptions options;
        options.instrumented = instrumented;
        const auto r = executor.run(inputs, options);
        QVERIFY2(r.ok, qPrintable(r.error.headline()));
        QCOMPARE(r.deviceNote, note);
        const auto flat = run::flattenTensors(r.outputs);
        QCOMPARE(flat.size(), expected.size());
        for (size_t k = 0; k < flat.size(); ++k) {
          QCOMPARE(flat[k].sizes(), expected[k].sizes());
          QCOMPARE(flat[k].scalar_type(), expected[k].scalar_type());
          QVERIFY(flat[k].device().is_cpu());
          const double diff = (flat[k] - expected[k]).abs().max().item<double>();
          qInfo("%s size %d%s: max |Graft - PyTorch| = %g", qPrintable(name), i, instrumented ? " (instrumented)" : "", diff);
          QVERIFY2(torch::allclose(flat[k], expected[k], 1e-4, 1e-5), qPrintable(QStringLiteral("output %1 at size %2").arg(k).arg(i)));
        }
      }
    }
  }

  // The program's own sample inputs were saved from cuda:0: graft-cli runs on them, says the
  // device it remapped, and the GPU program compares equal with its CPU original.
  void cliSaysWhatItRemapped() {
    const QDir dir(dir_.path());
    const auto self = graft::test::runCli({QStringLiteral("compare"), dir.filePath(QStringLiteral("device_cuda.pt2")), QStringLiteral("--json")});
    QVERIFY2(self.exitCode == 0, self.err.constData());
    QVERIFY2(self.err.contains("program exported for cuda, run on cpu"), self.err.constData());
    const auto notes = self.json().value(QStringLiteral("device_notes")).toArray();
    QCOMPARE(notes.size(), 2);
    QCOMPARE(notes[1].toString(), QStringLiteral("B: program exported for cuda, run on cpu"));
    const auto pair = graft::test::runCli({QStringLiteral("compare"), dir.filePath(QStringLiteral("device_cpu.pt2")),
                                           dir.filePath(QStringLiteral("device_cuda.pt2"))});
    QVERIFY2(pair.exitCode == 0, (pair.err + pair.out).constData());
    const auto profile = graft::test::runCli({QStringLiteral("profile"), dir.filePath(QStringLiteral("device_cuda_ts.pt")),
                                              QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--input"),
                                              QStringLiteral("2x5x8:float32")});
    QVERIFY2(profile.exitCode == 0, profile.err.constData());
    QVERIFY2(profile.err.contains("program exported for cuda:0, run on cpu"), profile.err.constData());
  }

  // The regions' ops save back as the program's own: stock PyTorch runs the saved program at
  // both sizes with the original's outputs (the autocast casts written out explicitly).
  void regionsSaveBack() {
    const QDir dir(dir_.path());
    auto loaded = io::loadFile(dir.filePath(QStringLiteral("hop_regions.pt2")));
    QVERIFY(loaded.ok());
    const QString saved = dir.filePath(QStringLiteral("hop_regions_saved.pt2"));
    const auto result = io::saveAs(*loaded.document, loaded.document->current(), saved);
    QVERIFY2(result.ok, qPrintable(result.error));
    auto reloaded = io::loadFile(saved);
    QVERIFY2(reloaded.ok(), qPrintable(reloaded.error.message() + QStringLiteral(": ") + reloaded.error.details));
    const QJsonObject ref = readJson(dir.filePath(QStringLiteral("hop_regions.ref.json")));
    QCOMPARE(model::GraphView::build(*reloaded.document->current()).programOps, ref.value(QStringLiteral("ops")).toInt());
    QStringList args{saved};
    for (int i = 0; i < 2; ++i)
      args << dir.filePath(QStringLiteral("hop_regions.%1.in.pt").arg(i)) << dir.filePath(QStringLiteral("hop_regions.%1.out.pt").arg(i));
    const auto check = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_dynamic_save.py"), args);
    QVERIFY2(check.exitCode == 0, (check.out + check.err).right(4000).constData());
  }

  // Each higher-order call is a group named for what the program wrote, under the module that
  // holds it, typed by the higher-order op, holding its body's ops (as torch.export counts them;
  // an autocast region's casts are Graft's, not the body's) and the modules its body calls.
  void regionsAreGroups_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QStringList>("groups");  // per ref region, in graph order
    QTest::newRow("no_grad and autocast") << QStringLiteral("hop_regions") << QStringList{QStringLiteral("no_grad"), QStringLiteral("autocast(bfloat16)")};
    QTest::newRow("invoke_subgraph") << QStringLiteral("invoke_subgraph") << QStringList{QStringLiteral("m1.subgraph_0"), QStringLiteral("m2.subgraph_0")};
  }
  void regionsAreGroups() {
    QFETCH(QString, name);
    QFETCH(QStringList, groups);
    const QDir dir(dir_.path());
    const auto regions = readJson(dir.filePath(name + QStringLiteral(".ref.json"))).value(QStringLiteral("regions")).toArray();
    QCOMPARE(regions.size(), groups.size());
    auto loaded = io::loadFile(dir.filePath(name + QStringLiteral(".pt2")));
    QVERIFY(loaded.ok());
    const auto view = model::GraphView::build(*loaded.document->current());
    const auto info = graft::test::runCli({QStringLiteral("info"), dir.filePath(name + QStringLiteral(".pt2")), QStringLiteral("--json")});
    QVERIFY2(info.exitCode == 0, info.err.constData());
    const auto modules = info.json().value(QStringLiteral("modules")).toArray();
    for (int i = 0; i < groups.size(); ++i) {
      const QJsonObject region = regions[i].toObject();
      const QString target = region.value(QStringLiteral("target")).toString();
      const QString module = region.value(QStringLiteral("module")).toString();
      QVERIFY2(groups[i].startsWith(module.isEmpty() ? QString() : module + QLatin1Char('.')), qPrintable(groups[i]));
      const auto g = std::find_if(view.groups.begin(), view.groups.end(), [&](const auto& x) { return x.path == groups[i]; });
      QVERIFY2(g != view.groups.end(), qPrintable(groups[i]));
      QCOMPARE(g->typeName, target);
      QCOMPARE(view.groups[g->parent].path, module);  // under the module that holds it
      int ops = 0;
      for (const auto& n : view.nodes) {
        const bool inside = n.modulePath == groups[i] || n.modulePath.startsWith(groups[i] + QLatin1Char('.'));
        if (inside && !n.kind.startsWith(QLatin1String("prim::")) && !n.kind.startsWith(QLatin1String("aten::_autocast_to_"))) ++ops;
      }
      QCOMPARE(ops, region.value(QStringLiteral("ops")).toInt());
      const auto listed = std::find_if(modules.begin(), modules.end(), [&](const QJsonValue& m) {
        return m.toObject().value(QStringLiteral("path")).toString() == groups[i];
      });
      QVERIFY2(listed != modules.end(), qPrintable(groups[i]));
      QCOMPARE(listed->toObject().value(QStringLiteral("type")).toString(), target);
      QCOMPARE(listed->toObject().value(QStringLiteral("ops")).toInt(), g->totalOps);
    }
  }

  // A rule rewrites the body at both invoke_subgraph calls (inside their groups), and the saved
  // program gives stock PyTorch the original's outputs at both sizes; Graft compares it equal.
  void invokeSubgraphRewritesAndSaves() {
    const QDir dir(dir_.path());
    const QString program = dir.filePath(QStringLiteral("invoke_subgraph.pt2"));
    const QString saved = dir.filePath(QStringLiteral("invoke_subgraph_rewritten.pt2"));
    const auto rw = graft::test::runCli({QStringLiteral("rewrite"), program, QStringLiteral("--rule"), QStringLiteral("gelu-decompose"),
                                         QStringLiteral("-o"), saved, QStringLiteral("--json")});
    QVERIFY2(rw.exitCode == 0, rw.err.constData());
    const auto applied = rw.json().value(QStringLiteral("applied")).toArray();
    QCOMPARE(applied.size(), 1);
    QCOMPARE(applied[0].toObject().value(QStringLiteral("matches")).toInt(), 2);
    QStringList args{saved};
    for (int i = 0; i < 2; ++i)
      args << dir.filePath(QStringLiteral("invoke_subgraph.%1.in.pt").arg(i)) << dir.filePath(QStringLiteral("invoke_subgraph.%1.out.pt").arg(i));
    const auto check = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/check_dynamic_save.py"), args);
    QVERIFY2(check.exitCode == 0, (check.out + check.err).right(4000).constData());
    const auto cmp = graft::test::runCli({QStringLiteral("compare"), program, saved, QStringLiteral("--json")});
    QVERIFY2(cmp.exitCode == 0, (cmp.err + cmp.out).right(4000).constData());
    // The decomposed gelu stays in the region it replaced.
    auto reloaded = io::loadFile(saved);
    QVERIFY(reloaded.ok());
    const auto view = model::GraphView::build(*reloaded.document->current());
    int erfs = 0;
    for (const auto& n : view.nodes)
      if (n.kind == QLatin1String("aten::erf")) {
        ++erfs;
        QVERIFY2(n.modulePath.endsWith(QLatin1String(".subgraph_0")), qPrintable(n.modulePath));
      }
    QCOMPARE(erfs, 2);
  }

  // A precision run of a real program gets past its dtype asserts and explicit casts: a verdict
  // (0 equal, 1 different, 3 an intermediate differs), never a failed run (2).
  void bfloat16GivesAVerdict_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("OPT") << QStringLiteral("opt_dyn.pt2");
    QTest::newRow("OPT decomposed") << QStringLiteral("opt_dyn_decomp.pt2");
    QTest::newRow("GPT-NeoX") << QStringLiteral("gpt_neox_dyn.pt2");
    QTest::newRow("Falcon") << QStringLiteral("falcon_dyn.pt2");
    QTest::newRow("Gemma") << QStringLiteral("gemma_dyn.pt2");
    QTest::newRow("ALBERT") << QStringLiteral("albert_dyn.pt2");
    QTest::newRow("DistilBERT decomposed") << QStringLiteral("distilbert_dyn_decomp.pt2");
  }
  void bfloat16GivesAVerdict() {
    QFETCH(QString, file);
    for (const char* dtype : {"bfloat16", "float16"}) {
      const auto r = graft::test::runCli({QStringLiteral("compare"), QDir(dir_.path()).filePath(file), QStringLiteral("--dtype-b"),
                                          QString::fromLatin1(dtype), QStringLiteral("--json")});
      qInfo("%s at %s: exit %d, %s", qPrintable(file), dtype, r.exitCode, r.err.left(2000).constData());
      QVERIFY2(r.exitCode == 0 || r.exitCode == 1 || r.exitCode == 3, (r.err + r.out).right(4000).constData());
      const QJsonObject json = r.json();
      QVERIFY(json.contains(QStringLiteral("outputs")));
      // What was relaxed is said, line by line, beside a one-line summary.
      const auto relaxed = json.value(QStringLiteral("relaxed_b")).toArray();
      if (!relaxed.isEmpty()) {
        QVERIFY2(r.err.contains("the way autocast would") || r.err.contains("as model.half() would"), r.err.constData());
        for (const auto& line : relaxed)
          QVERIFY2(line.toString().contains(QLatin1String(" (node ")), qPrintable(line.toString()));
      }
    }
    if (file == QLatin1String("opt_dyn.pt2")) {  // OPT asserts its embeddings' float32
      // As written, the assert is relaxed; as model.half() makes it, the dtype it recorded follows.
      const auto asWritten = graft::test::runCli({QStringLiteral("compare"), QDir(dir_.path()).filePath(file), QStringLiteral("--dtype-b"),
                                                  QStringLiteral("bfloat16"), QStringLiteral("--casts"), QStringLiteral("as-written"),
                                                  QStringLiteral("--json")});
      bool assertRelaxed = false;
      for (const auto& line : asWritten.json().value(QStringLiteral("relaxed_b")).toArray())
        assertRelaxed = assertRelaxed || line.toString().contains(QLatin1String("float32 assert relaxed for a bfloat16 tensor"));
      QVERIFY(assertRelaxed);
      const auto follow = graft::test::runCli({QStringLiteral("compare"), QDir(dir_.path()).filePath(file), QStringLiteral("--dtype-b"),
                                               QStringLiteral("bfloat16"), QStringLiteral("--json")});
      bool followed = false;
      for (const auto& line : follow.json().value(QStringLiteral("relaxed_b")).toArray())
        followed = followed || line.toString().contains(QLatin1String("recorded float32 follows bfloat16"));
      QVERIFY(followed);
    }
  }

 private:
  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestDevices)
#include "tst_devices.moc"
