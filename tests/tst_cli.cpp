// graft-cli info/ir against stock PyTorch's view of real torchvision models, and its exit codes.
#include "test_support.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using graft::test::reference;
using graft::test::runCli;
using graft::test::testdata;

class TstCli : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void infoMatchesPyTorch_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("resnet18") << "resnet18";
    QTest::newRow("mobilenet_v2") << "mobilenet_v2";
    QTest::newRow("densenet121") << "densenet121";
  }
  void infoMatchesPyTorch() {
    QFETCH(QString, model);
    const QJsonObject ref = reference(model);
    QVERIFY2(!ref.isEmpty(), "reference JSON missing: did make_testdata run?");
    const auto r = runCli({QStringLiteral("info"), testdata(model + QStringLiteral(".pt")), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject info = r.json();
    QCOMPARE(info.value("ops").toInt(), ref.value("ops").toInt());
    QCOMPARE(info.value("jit_nodes").toInt(), ref.value("jit_nodes").toInt());
    const QJsonObject hist = info.value("op_histogram").toObject();
    const QJsonObject refHist = ref.value("op_histogram").toObject();
    QCOMPARE(hist.keys(), refHist.keys());
    for (const auto& k : refHist.keys()) QCOMPARE(hist.value(k).toInt(), refHist.value(k).toInt());
    // Every Conv2d of the Python model is a module group holding exactly one convolution.
    QHash<QString, int> opsByPath;
    for (const auto& m : info.value("modules").toArray())
      opsByPath.insert(m.toObject().value("path").toString(), m.toObject().value("ops").toInt());
    const auto convs = ref.value("conv_modules").toArray();
    QVERIFY(convs.size() > 10);
    for (const auto& c : convs) {
      QVERIFY2(opsByPath.contains(c.toString()), qPrintable(c.toString()));
      QCOMPARE(opsByPath.value(c.toString()), 1);
    }
    QVERIFY(info.value("groups").toInt() > convs.size());
    QCOMPARE(info.value("inputs").toArray().size(), 1);
  }
  void resnetHasNestedModulePaths() {
    const auto r = runCli({QStringLiteral("info"), testdata(QStringLiteral("resnet18.pt")), QStringLiteral("--json")});
    QStringList paths;
    for (const auto& m : r.json().value("modules").toArray()) paths << m.toObject().value("path").toString();
    for (const char* p : {"layer1", "layer1.0", "layer1.0.conv1", "layer4.1.bn2", "fc"})
      QVERIFY2(paths.contains(QString::fromLatin1(p)), p);
  }
  void samplesWorkFromTheCli_data() {
    QTest::addColumn<QString>("name");
    QTest::newRow("cnn") << "cnn";
    QTest::newRow("mlp") << "mlp";
    QTest::newRow("transformer") << "transformer";
  }
  void samplesWorkFromTheCli() {
    QFETCH(QString, name);
    const auto r = runCli({QStringLiteral("info"), QStringLiteral("--sample"), name, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.json().value("ops").toInt() > 5);
    const auto ir = runCli({QStringLiteral("ir"), QStringLiteral("--sample"), name});
    QCOMPARE(ir.exitCode, 0);
    QVERIFY(ir.out.startsWith("graph("));
  }
  void badInputExitsTwoWithOneLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mustSay");
    QTest::newRow("state_dict") << QStringList{"info", testdata("bad/state_dict.pt")} << "state_dict";
    QTest::newRow("truncated") << QStringList{"info", testdata("bad/truncated.pt")} << "truncated";
    QTest::newRow("no model") << QStringList{"info"} << "missing MODEL";
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << "unknown command";
    QTest::newRow("unknown option") << QStringList{"info", "--bogus"} << "bogus";
  }
  void badInputExitsTwoWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, mustSay);
    const auto r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    const QString first = QString::fromUtf8(r.err).section('\n', 0, 0);
    QVERIFY2(first.startsWith("graft-cli: ") && first.contains(mustSay), qPrintable(first));
    QVERIFY(r.out.isEmpty());
  }
  // Errors as data: one "graft-cli: severity: message (hint)" line per diagnostic on stderr, and
  // with --json a diagnostics[] array (also when the command stopped before its answer).
  void jsonCarriesDiagnostics() {
    const auto ok = runCli({"info", "--sample", "cnn", "--json"});
    QCOMPARE(ok.exitCode, 0);
    QVERIFY(ok.json().value("diagnostics").isArray());
    QCOMPARE(ok.json().value("diagnostics").toArray().size(), 0);

    const QString bad = testdata("bad/state_dict.pt");
    const auto load = runCli({"info", bad, "--json"});
    QCOMPARE(load.exitCode, 2);
    QVERIFY2(load.err.startsWith("graft-cli: error: "), load.err.constData());
    const auto ds = load.json().value("diagnostics").toArray();
    QCOMPARE(ds.size(), 1);
    const auto d = ds.first().toObject();
    for (const char* key : {"severity", "message", "hint", "node", "file", "line", "job"}) QVERIFY2(d.contains(QLatin1String(key)), key);
    QCOMPARE(d.value("severity").toString(), QStringLiteral("error"));
    QCOMPARE(d.value("job").toString(), QStringLiteral("load"));
    QCOMPARE(d.value("file").toString(), bad);
    QVERIFY(d.value("message").toString().contains("state_dict"));
    QVERIFY(!d.value("hint").toString().isEmpty());
    // The stderr line carries the message and, in parentheses, the hint.
    QVERIFY(load.err.contains(QStringLiteral("(%1").arg(d.value("hint").toString().section(' ', 0, 2)).toUtf8()));

    // A failing run names its node (the first convolution of the cnn sample wants 3 channels).
    const auto run = runCli({"profile", "--sample", "cnn", "--input", "1x5x32x32", "--runs", "1", "--json"});
    QCOMPARE(run.exitCode, 2);
    const auto pd = run.json().value("diagnostics").toArray().first().toObject();
    QCOMPARE(pd.value("job").toString(), QStringLiteral("profile"));
    QVERIFY(pd.value("node").toInteger() > 0);

    // Usage errors are diagnostics of the command's job too.
    const auto usage = runCli({"compare", "--sample", "cnn", "--seed", "x", "--json"});
    QCOMPARE(usage.exitCode, 2);
    QCOMPARE(usage.json().value("diagnostics").toArray().first().toObject().value("job").toString(), QStringLiteral("compare"));

    // A rule file that does not parse: file, line and column.
    QTemporaryDir dir;
    const QString rule = dir.filePath("broken.rule");
    QFile f(rule);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("id: broken\ntitle: Broken\n[pattern]\ngraph(%x):\n  %r = aten::relu(%x\n  return (%r)\n[replacement]\ngraph(%x):\n  return (%x)\n");
    f.close();
    const auto rw = runCli({"rewrite", "--sample", "cnn", "--rule", rule, "-o", dir.filePath("out.pt"), "--json"});
    QCOMPARE(rw.exitCode, 2);
    QVERIFY2(rw.err.contains("broken.rule:"), rw.err.constData());
    QCOMPARE(rw.json().value("diagnostics").toArray().first().toObject().value("job").toString(), QStringLiteral("rewrite"));
  }
  // One reason at many sites prints once, counted, on stderr and in the text report; --json
  // keeps one diagnostic per site. (Unfrozen, resnet18's 20 convolution weights are not constants.)
  void repeatedSkipsPrintOnce() {
    QTemporaryDir dir;
    const QStringList args{"rewrite", testdata("resnet18.pt"), "--no-freeze", "--rule", "fold-conv-bn", "-o", dir.filePath("out.pt")};
    const auto text = runCli(args);
    QCOMPARE(text.exitCode, 0);
    const QByteArray skip = "skipped a match at aten::batch_norm: non-constant weights";
    QCOMPARE(text.err.count(skip), 1);
    QVERIFY2(text.err.contains("(20 times)"), text.err.constData());
    QCOMPARE(text.out.count("  skipped aten::batch_norm"), 1);
    QVERIFY2(text.out.contains("fold-conv-bn: 0 matches, 20 skipped"), text.out.constData());
    const auto json = runCli(args + QStringList{"--json"});
    QCOMPARE(json.exitCode, 0);
    int skips = 0;
    for (const auto& d : json.json().value("diagnostics").toArray())
      skips += d.toObject().value("message").toString().contains(QString::fromLatin1(skip));
    QCOMPARE(skips, 20);
  }

  void profileReportsAndTraces() {
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("t.json"));
    const auto r = runCli({"profile", "--sample", "cnn", "--runs", "3", "--warmup", "1", "--json", "--trace", trace});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = r.json();
    for (const char* key : {"runs", "median_ms", "p10_ms", "p90_ms", "forward_median_ms", "nodes", "by_op"})
      QVERIFY2(j.contains(QLatin1String(key)), key);
    QCOMPARE(j.value("runs").toInt(), 3);
    QCOMPARE(j.value("nodes").toArray().size(), 23);  // every op node of the cnn sample
    const auto node = j.value("nodes").toArray().first().toObject();
    QVERIFY(node.contains("module_path") && node.contains("self_ms_median") && node.contains("op"));
    QFile f(trace);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(QJsonDocument::fromJson(f.readAll()).object().value("traceEvents").toArray().size() > 3 * 23);
    const auto noShape = runCli({"profile", testdata("resnet18.pt")});
    QCOMPARE(noShape.exitCode, 2);
    QVERIFY(noShape.err.contains("--input"));
    const auto badShape = runCli({"profile", "--sample", "cnn", "--input", "1x5x32x32", "--runs", "1"});
    QCOMPARE(badShape.exitCode, 2);
    QVERIFY2(badShape.err.contains("failed to run"), badShape.err.constData());
  }
  // Models that throw inside libtorch on some paths (quantized tensors, int arguments): every
  // command either works or says why with exit 2; the process never aborts.
  void hardModelsNeverAbort_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    const QString q = testdata("hard/quantized_mobilenet_v2.pt"), qx = testdata("hard/quantized_mobilenet_v2.x.pt");
    const QString loop = testdata("hard/loop_int.pt"), lx = testdata("hard/loop_int.x.pt");
    const QStringList loopInputs{"--input", lx, "--input", "3", "--input", "0.5", "--input", "true", "--input", "none"};
    QTest::newRow("quantized info") << QStringList{"info", q, "--json"} << 0;
    QTest::newRow("quantized shapes") << QStringList{"shapes", q, "--input", qx, "--json"} << 0;
    QTest::newRow("quantized compare per node") << QStringList{"compare", q, q, "--input", qx, "--per-node", "--json"} << 0;
    QTest::newRow("quantized profile") << QStringList{"profile", q, "--input", qx, "--runs", "2", "--warmup", "0", "--json"} << 0;
    QTest::newRow("quantized wrong input") << QStringList{"compare", q, q, "--input", "1x3x8x8:int64", "--per-node"} << 2;
    QTest::newRow("loop compare per node") << (QStringList{"compare", loop, loop, "--per-node", "--json"} + loopInputs) << 0;
    QTest::newRow("loop profile") << (QStringList{"profile", loop, "--runs", "2", "--warmup", "0", "--json"} + loopInputs) << 0;
    QTest::newRow("loop shapes") << (QStringList{"shapes", loop, "--json"} + loopInputs) << 0;
    QTest::newRow("loop without the int") << QStringList{"compare", loop, loop, "--input", lx} << 2;
    QTest::newRow("loop without inputs") << QStringList{"profile", loop} << 2;
  }
  void hardModelsNeverAbort() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    const auto r = runCli(args);
    QVERIFY2(!r.err.contains("terminate called"), r.err.constData());
    QVERIFY2(r.exitCode == exitCode, qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(QString::fromUtf8(r.err))));
    if (exitCode == 2) {
      // One line of ours (libtorch may print a deprecation warning of its own before it).
      QVERIFY2(r.err.startsWith("graft-cli: ") || r.err.contains("\ngraft-cli: "), r.err.constData());
      QVERIFY(r.out.isEmpty());
    } else if (args.first() == "compare") {
      QVERIFY(r.json().value("equal").toBool());
    }
  }
  // shapes after a run of a dynamic program: each value's concrete shape beside its symbolic one,
  // and the size each symbol took, with the range the program allows it.
  void shapesOfADynamicRun() {
    const auto r = runCli({QStringLiteral("shapes"), testdata(QStringLiteral("pt2/dynamic_batch.pt2")), QStringLiteral("--input"),
                           QStringLiteral("5x8"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject s77 = r.json().value(QStringLiteral("symbols")).toObject().value(QStringLiteral("s77")).toObject();
    QCOMPARE(s77.value(QStringLiteral("value")).toInt(), 5);
    QVERIFY(s77.value(QStringLiteral("max")).toInt() >= 5);
    int symbolic = 0;
    for (const auto& v : r.json().value(QStringLiteral("values")).toArray()) {
      const QJsonArray shape = v.toObject().value(QStringLiteral("shape")).toArray();
      const QJsonArray declared = v.toObject().value(QStringLiteral("symbolic_shape")).toArray();
      if (declared.isEmpty()) continue;
      ++symbolic;
      QCOMPARE(declared.size(), shape.size());
      for (qsizetype k = 0; k < shape.size(); ++k)
        QCOMPARE(shape[k].toInt(), declared[k].isString() ? 5 : declared[k].toInt());  // s77 is the only symbol
    }
    QVERIFY(symbolic >= 2);
    const auto text = runCli({QStringLiteral("shapes"), testdata(QStringLiteral("pt2/dynamic_batch.pt2")), QStringLiteral("--input"), QStringLiteral("5x8")});
    QVERIFY2(text.out.contains("[5, 8] = [s77, 8]") && text.out.contains("s77 = 5 (allowed 2.."), text.out.constData());
  }

  void helpAndVersion() {
    const auto help = runCli({QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("Usage: graft-cli"));
    QVERIFY(runCli({QStringLiteral("info"), QStringLiteral("--help")}).out.contains("--sample"));
    QVERIFY(runCli({QStringLiteral("--version")}).out.startsWith("graft-cli "));
  }
  // --version names the libtorch actually loaded: the venv's torch, by its own version.py.
  void versionNamesTheLoadedLibtorch() {
    const auto py = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/torch_facts.py"), {});
    QVERIFY2(py.exitCode == 0, py.err.constData());
    const auto facts = py.json();
    const QString out = QString::fromUtf8(runCli({QStringLiteral("--version")}).out);
    QVERIFY2(out.contains(QStringLiteral("libtorch %1 (").arg(facts.value("version").toString())), qPrintable(out));
    QVERIFY2(out.contains(facts.value("lib_dir").toString()), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("torchvision ops: %1").arg(facts.value("torchvision").toString())), qPrintable(out));
    QVERIFY2(out.contains(facts.value("cuda").toBool() ? QStringLiteral("CUDA: yes") : QStringLiteral("CUDA: no")), qPrintable(out));
  }
  // Runs use one intra-op thread per physical core unless --threads says otherwise.
  void threadsOption() {
    const auto py = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/torch_facts.py"), {});
    const int pytorchDefault = py.json().value("threads").toInt();
    const auto byDefault = runCli({"profile", "--sample", "cnn", "--runs", "1", "--warmup", "0", "--json"});
    QVERIFY2(byDefault.exitCode == 0, byDefault.err.constData());
    QCOMPARE(byDefault.json().value("threads").toInt(), pytorchDefault);
    const auto one = runCli({"profile", "--sample", "cnn", "--runs", "1", "--warmup", "0", "--threads", "1", "--json"});
    QVERIFY2(one.exitCode == 0, one.err.constData());
    QCOMPARE(one.json().value("threads").toInt(), 1);
    const auto bad = runCli({"profile", "--sample", "cnn", "--threads", "0"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--threads"), bad.err.constData());
  }
};

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
