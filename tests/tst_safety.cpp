// Bad input never takes the process down and never reads or writes wrong bytes: a torch.export
// program run on inputs libtorch refuses, compressed archive records, a future export schema,
// input paths that are devices or pipes, outputs that are devices, a full disk while saving,
// and records a saved program does not need. Each case runs graft-cli as a user would.
#include "core/rewrite/rule_parser.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "measured_run.h"
#include "test_support.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFileInfo>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTemporaryFile>
#include <QtTest/QtTest>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

using graft::test::Measured;
using graft::test::runCli;
using graft::test::runMeasured;

namespace {

QString cli() { return qEnvironmentVariable("GRAFT_CLI"); }

// Exit 2 with a one-line error, never a signal or an abort.
void checkRefused(const graft::test::CliResult& r, const QString& what, const QString& mentions = {}) {
  QVERIFY2(r.exitCode == 2, qPrintable(QStringLiteral("%1: exit %2: %3").arg(what).arg(r.exitCode).arg(QString::fromUtf8(r.err))));
  QVERIFY2(r.err.startsWith("graft-cli: error: "), qPrintable(what + QStringLiteral(": ") + QString::fromUtf8(r.err)));
  if (!mentions.isEmpty())
    QVERIFY2(QString::fromUtf8(r.err).contains(mentions), qPrintable(what + QStringLiteral(": ") + QString::fromUtf8(r.err)));
}


}  // namespace

class TestSafety : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const auto made = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_safety_files.py"),
                                             {dir_.path()});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    QVERIFY(damaged_.isValid());
    // layout and report start a QGuiApplication, which warns on stderr without a runtime folder.
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
      QVERIFY(runtime_.isValid());
      QFile::setPermissions(runtime_.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
      qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime_.path()));
    }
    const auto records = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_damaged_records.py"),
                                                {damaged_.path()});
    QVERIFY2(records.exitCode == 0, records.err.constData());
    const auto bombs = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_size_bombs.py"), {dir_.path()});
    QVERIFY2(bombs.exitCode == 0, bombs.err.constData());
    QFile sigmoid(damaged_.filePath(QStringLiteral("relu-to-sigmoid.rule")));
    QVERIFY(sigmoid.open(QIODevice::WriteOnly));
    sigmoid.write("id: relu-to-sigmoid\ntitle: relu to sigmoid\n[pattern]\ngraph(%x):\n  %y = aten::relu(%x)\n  return (%y)\n"
                  "[replacement]\ngraph(%x):\n  %y = aten::sigmoid(%x)\n  return (%y)\n");
  }

  // libtorch raising inside a program's run is an error naming the node, as for TorchScript.
  void programRunErrorsAreMessages_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("input");
    QTest::newRow("wrong rank") << QStringLiteral("pt2/resnet18.pt2") << QStringLiteral("1x3x7");
    QTest::newRow("empty dim") << QStringLiteral("pt2/resnet18.pt2") << QStringLiteral("1x3x224x224x0");
    QTest::newRow("int for a tensor") << QStringLiteral("pt2/resnet18.pt2") << QStringLiteral("3");
    QTest::newRow("wrong shape file") << QStringLiteral("plain.pt2") << QStringLiteral("wrong_shape.pt");
  }
  void programRunErrorsAreMessages() {
    QFETCH(QString, model);
    QFETCH(QString, input);
    const QString path = model.startsWith(QLatin1String("pt2/")) ? graft::test::testdata(model) : dir_.filePath(model);
    const QString spec = input.endsWith(QLatin1String(".pt")) ? dir_.filePath(input) : input;
    for (const char* command : {"compare", "profile", "shapes"}) {
      QStringList args{QString::fromLatin1(command), path, QStringLiteral("--input"), spec};
      if (QLatin1String(command) == QLatin1String("profile")) args << QStringLiteral("--runs") << QStringLiteral("1");
      checkRefused(runCli(args), QStringLiteral("%1 %2 --input %3").arg(QLatin1String(command), model, input));
    }
  }

  // A program's range_constraints hold as in stock PyTorch: batch 2 ≤ b ≤ 64 runs at 12 and is
  // refused at 65 and 1 with the constraint named; a static dimension keeps its size.
  void rangeConstraintsAreEnforced_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<bool>("runs");
    QTest::newRow("12x8") << QStringLiteral("12x8") << true;
    QTest::newRow("65x8") << QStringLiteral("65x8") << false;
    QTest::newRow("1x8") << QStringLiteral("1x8") << false;
    QTest::newRow("4x9") << QStringLiteral("4x9") << false;
  }
  void rangeConstraintsAreEnforced() {
    QFETCH(QString, input);
    QFETCH(bool, runs);
    const auto r = runCli({QStringLiteral("compare"), graft::test::testdata(QStringLiteral("pt2/dynamic_batch.pt2")),
                           QStringLiteral("--input"), input});
    if (runs) {
      QVERIFY2(r.exitCode == 0, r.err.constData());
    } else {
      checkRefused(r, input, input.endsWith(QLatin1String("x9")) ? QStringLiteral("not a dynamic dimension")
                                                                  : QStringLiteral("range_constraints"));
    }
  }

  // Deflate-compressed records are inflated: the program computes what the stored one does.
  void compressedRecordsAreInflated() {
    const auto r = runCli({QStringLiteral("compare"), dir_.filePath(QStringLiteral("plain.pt2")),
                           dir_.filePath(QStringLiteral("deflated.pt2")), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto out = r.json().value(QStringLiteral("outputs")).toArray().first().toObject();
    QCOMPARE(out.value(QStringLiteral("max_abs")).toDouble(), 0.0);
    QVERIFY(out.value(QStringLiteral("numel")).toDouble() > 0);
  }

  // A record that would inflate over 100× is refused before anything inflates it.
  void deflateBombIsRefused() {
    const auto r = runCli({QStringLiteral("info"), dir_.filePath(QStringLiteral("bomb.pt2"))});
    checkRefused(r, QStringLiteral("deflate bomb"), QStringLiteral("inflate"));
  }

  // A model.json of 1,000,000 nodes (190 MB) is refused with the limit named, before Qt's JSON
  // parser (which aborted at 5 GB) or the graph sees it.
  void programSizeIsBounded() {
    const Measured r = runMeasured({QStringLiteral("info"), dir_.filePath(QStringLiteral("many_nodes.pt2"))});
    QCOMPARE(r.signal, 0);
    QVERIFY2(r.exitCode == 2 && r.err.startsWith("graft-cli: error: "), r.err.constData());
    QVERIFY2(r.err.contains("1,000,000 nodes") && r.err.contains("200,000"), r.err.constData());
    QVERIFY2(r.peakKiB < 1500 * 1024, qPrintable(QString::number(r.peakKiB)));
  }

  // Zip directories that make one small file read as gigabytes: 10,000 code records pointing at
  // one deflated 1 MiB record (took 114 s), the same as 10,000 copies, or one record listed
  // 10,000 times. Each is refused at once, before the code scan reads any of them.
  void sharedRecordsAreRefused_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("shared") << QStringLiteral("shared_code.pt") << QStringLiteral("inflate");
    QTest::newRow("copies") << QStringLiteral("many_code.pt") << QStringLiteral("code records");
    QTest::newRow("listed twice") << QStringLiteral("listed_twice.pt") << QStringLiteral("listed twice");
  }
  void sharedRecordsAreRefused() {
    QFETCH(QString, file);
    QFETCH(QString, mentions);
    const Measured r = runMeasured({QStringLiteral("info"), dir_.filePath(file)});
    QCOMPARE(r.signal, 0);
    QVERIFY2(r.exitCode == 2 && QString::fromUtf8(r.err).contains(mentions), r.err.constData());
    QVERIFY2(r.ms < 10000, qPrintable(QString::number(r.ms)));
  }

  // --threads beyond what the machine can run is a usage error, not libgomp running out of
  // memory (exit 1, "outputs differ") or a model blamed for it.
  void threadCountIsBounded_data() {
    QTest::addColumn<QString>("threads");
    QTest::addColumn<bool>("runs");
    QTest::newRow("2") << QStringLiteral("2") << true;
    QTest::newRow("5000") << QStringLiteral("5000") << false;
    QTest::newRow("100000") << QStringLiteral("100000") << false;
  }
  void threadCountIsBounded() {
    QFETCH(QString, threads);
    QFETCH(bool, runs);
    const auto r = runCli({QStringLiteral("compare"), QStringLiteral("--sample"), QStringLiteral("mlp"),
                           QStringLiteral("--threads"), threads});
    if (runs) {
      QVERIFY2(r.exitCode == 0, r.err.constData());
    } else {
      checkRefused(r, QStringLiteral("--threads ") + threads, QStringLiteral("--threads ") + threads);
      QVERIFY2(r.err.contains("at most"), r.err.constData());
    }
  }

  void futureSchemaIsRefused() {
    const auto r = runCli({QStringLiteral("info"), dir_.filePath(QStringLiteral("future.pt2"))});
    checkRefused(r, QStringLiteral("future schema"), QStringLiteral("99"));
    QVERIFY(QString::fromUtf8(r.err).contains(QLatin1String("8.x")));
  }

  // Input paths that are not regular files are refused at once, never read.
  void inputDevicesAndPipesAreRefused() {
    const QString fifo = dir_.filePath(QStringLiteral("fifo"));
    QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    for (const QString& input : {QStringLiteral("/dev/zero"), fifo})
      checkRefused(runCli({QStringLiteral("compare"), dir_.filePath(QStringLiteral("plain.pt2")), QStringLiteral("--input"), input}, 60000),
                   input, QStringLiteral("not a regular file"));
  }

  // An output that is a device is refused and left as it is.
  void outputDevicesAreRefused() {
    const auto r = runCli({QStringLiteral("rewrite"), graft::test::testdata(QStringLiteral("resnet18.pt")), QStringLiteral("--rule"),
                           QStringLiteral("fold-conv-bn"), QStringLiteral("-o"), QStringLiteral("/dev/full")});
    checkRefused(r, QStringLiteral("-o /dev/full"), QStringLiteral("not a regular file"));
    struct stat st {};
    QVERIFY(::stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
  }

  // A write that fails part way (here a file size limit, as a full disk would) is a message; no
  // partial file is left and the process ends normally.
  void failedWriteIsAMessage_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("out");
    QTest::newRow("TorchScript") << graft::test::testdata(QStringLiteral("resnet18.pt")) << QStringLiteral("full.pt");
    QTest::newRow("torch.export") << graft::test::testdata(QStringLiteral("pt2/resnet18.pt2")) << QStringLiteral("full.pt2");
  }
  void failedWriteIsAMessage() {
    QFETCH(QString, model);
    QFETCH(QString, out);
    const QString target = dir_.filePath(out);
    QProcess p;
    // SIGXFSZ ignored, so the write fails with EFBIG as it would with ENOSPC on a full disk.
    p.start(QStringLiteral("bash"), {QStringLiteral("-c"), QStringLiteral("trap '' XFSZ; ulimit -f 1000; exec \"$0\" rewrite \"$1\" --rule fold-conv-bn -o \"$2\""),
                                     cli(), model, target});
    QVERIFY(p.waitForFinished(600000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 2);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.startsWith(QLatin1String("graft-cli: error: ")) && err.contains(QLatin1String("write"), Qt::CaseInsensitive), qPrintable(err));
    QVERIFY(!QFileInfo::exists(target));
  }

  // A crash inside Graphviz (simulated in one module) is a warning and a plain column for that
  // module; the rest is laid out and the SVG is written.
  void layoutCrashIsAWarning() {
    const QString svg = dir_.filePath(QStringLiteral("crash.svg"));
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("GRAFT_TEST_LAYOUT_CRASH"), QStringLiteral("layer1.0"));
    p.setProcessEnvironment(env);
    p.start(cli(), {QStringLiteral("layout"), graft::test::testdata(QStringLiteral("resnet18.pt")), QStringLiteral("--expand"),
                    QStringLiteral("all"), QStringLiteral("--svg"), svg, QStringLiteral("--json")});
    QVERIFY(p.waitForFinished(300000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains(QLatin1String("Graphviz failed on layer1.0")), qPrintable(err));
    QVERIFY(QFileInfo(svg).size() > 1000);
    // Without the fault, nothing is drawn as a fallback.
    const auto plain = runCli({QStringLiteral("layout"), graft::test::testdata(QStringLiteral("resnet18.pt")), QStringLiteral("--expand"),
                               QStringLiteral("all"), QStringLiteral("--json")});
    QCOMPARE(plain.exitCode, 0);
    QVERIFY2(!plain.err.contains("Graphviz failed"), plain.err.constData());
    QVERIFY(plain.json().value(QStringLiteral("diagnostics")).toArray().isEmpty());
  }

  // The scripted RetinaNet, fully expanded: its module paths hold no pseudo-module "SELF" (whose
  // deep empty clusters crashed Graphviz), and every group is laid out by Graphviz itself.
  void scriptedRetinanetLaysOut() {
    const QString model = graft::test::testdata(QStringLiteral("hard/retinanet_script.pt"));
    const auto info = runCli({QStringLiteral("info"), model, QStringLiteral("--json")});
    QCOMPARE(info.exitCode, 0);
    QVERIFY(info.json().value(QStringLiteral("groups")).toInt() > 50);
    QVERIFY2(!info.out.contains("SELF"), info.out.constData());
    const QString svg = dir_.filePath(QStringLiteral("retinanet.svg"));
    const auto laid = runCli({QStringLiteral("layout"), model, QStringLiteral("--expand"), QStringLiteral("all"), QStringLiteral("--svg"), svg,
                              QStringLiteral("--json")});
    QVERIFY2(laid.exitCode == 0, laid.err.constData());
    QVERIFY2(laid.json().value(QStringLiteral("diagnostics")).toArray().isEmpty(), laid.err.constData());
    QCOMPARE(laid.json().value(QStringLiteral("expanded_groups")).toInt(), laid.json().value(QStringLiteral("groups")).toInt());
    QVERIFY(QFileInfo(svg).size() > 10000);
  }

  // End to end on mutated archives (a fuzz harness that runs models): bytes of a TorchScript
  // file and of a torch.export program flipped, cut or repeated at seeded random places, then
  // info, compare and profile on each. Every run ends with an answer or a message (exit 0 to 3),
  // never a signal, an abort or a hang.
  void mutatedArchivesRunOrSayWhy_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("input");
    QTest::newRow("torchscript") << QStringLiteral("numerics/culprit.pt") << QStringLiteral("numerics/culprit.x.pt");
    QTest::newRow("torch.export") << QStringLiteral("numerics/culprit.pt2") << QString();
  }
  void mutatedArchivesRunOrSayWhy() {
    QFETCH(QString, model);
    QFETCH(QString, input);
    QFile original(graft::test::testdata(model));
    QVERIFY(original.open(QIODevice::ReadOnly));
    const QByteArray bytes = original.readAll();
    QRandomGenerator rng(2026);
    QMap<int, int> exits;
    for (int i = 0; i < 40; ++i) {
      QByteArray mutated = bytes;
      const int edits = 1 + int(rng.bounded(8u));
      for (int e = 0; e < edits; ++e) {
        const int at = int(rng.bounded(quint32(mutated.size())));
        switch (rng.bounded(4u)) {
          case 0: mutated[at] = char(rng.bounded(256u)); break;                                            // a byte
          case 1: mutated[at] = char(mutated[at] ^ (1 << rng.bounded(8u))); break;                         // a bit
          case 2: mutated.truncate(std::max(64, at)); break;                                               // cut short
          default: mutated.insert(at, mutated.mid(int(rng.bounded(quint32(mutated.size()))), 64)); break;  // repeated
        }
      }
      const QString path = dir_.filePath(QStringLiteral("mutated_%1.%2").arg(i).arg(QFileInfo(model).suffix()));
      QFile out(path);
      QVERIFY(out.open(QIODevice::WriteOnly) && out.write(mutated) == mutated.size());
      out.close();
      QStringList runInput;
      if (!input.isEmpty()) runInput << QStringLiteral("--input") << graft::test::testdata(input);
      for (const QString& command : {QStringLiteral("info"), QStringLiteral("compare"), QStringLiteral("profile")}) {
        QStringList args{command, path};
        if (command != QLatin1String("info")) args << runInput;
        if (command == QLatin1String("profile")) args << QStringLiteral("--runs") << QStringLiteral("1") << QStringLiteral("--warmup") << QStringLiteral("0");
        const auto r = runCli(args, 120000);
        QVERIFY2(r.exitCode >= 0 && r.exitCode <= 3,
                 qPrintable(QStringLiteral("%1 on mutation %2 of %3: exit %4: %5").arg(command).arg(i).arg(model).arg(r.exitCode).arg(QString::fromUtf8(r.err.right(400)))));
        ++exits[r.exitCode];
      }
    }
    qInfo("%s: exit codes over 120 runs: %s", qPrintable(model), qPrintable([&] {
            QStringList parts;
            for (auto it = exits.begin(); it != exits.end(); ++it) parts << QStringLiteral("%1×%2").arg(it.value()).arg(it.key());
            return parts.join(QStringLiteral(", "));
          }()));
  }

  void savedProgramDropsUnusedRecords() {
    const QString out = dir_.filePath(QStringLiteral("from_junk.pt2"));
    const auto r = runCli({QStringLiteral("rewrite"), dir_.filePath(QStringLiteral("junk.pt2")), QStringLiteral("--pass"),
                           QStringLiteral("dead-code-elimination"), QStringLiteral("-o"), out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto listed = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/list_records.py"), {out});
    QVERIFY2(listed.exitCode == 0, listed.err.constData());
    QVERIFY2(!listed.out.contains("junk"), listed.out.constData());
    QVERIFY(listed.out.contains("models/model.json"));
  }

  // Records shorter than the tensors they hold, in both formats and as --input files, are refused
  // with a message as torch.load refuses them: never a crash, never a run on garbage.
  void damagedRecordsAreRefused_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QString d = damaged_.path() + QLatin1Char('/');
    const QString out = damaged_.filePath(QStringLiteral("out.pt"));
    QTest::newRow("short weight: info") << QStringList{"info", d + "short_weight.pt"} << "does not match expected size";
    QTest::newRow("short weight: compare") << QStringList{"compare", d + "short_weight.pt", d + "conv.pt", "--input", "2x3x16x16"}
                                           << "does not match expected size";
    QTest::newRow("short weight: profile") << QStringList{"profile", d + "short_weight.pt", "--input", "2x3x16x16", "--runs", "1"}
                                           << "does not match expected size";
    QTest::newRow("short weight: rewrite") << QStringList{"rewrite", d + "short_weight.pt", "--pass", "dead-code-elimination", "-o", out}
                                           << "does not match expected size";
    QTest::newRow("empty weight: info") << QStringList{"info", d + "empty_weight.pt"} << "does not match expected size";
    QTest::newRow("short constant: info") << QStringList{"info", d + "short_constant.pt"} << "does not match expected size";
    QTest::newRow("short --input") << QStringList{"compare", d + "conv.pt", d + "conv.pt", "--input", d + "short_tensor.pt"}
                                   << "does not match expected size";
    QTest::newRow("empty --input") << QStringList{"profile", d + "conv.pt", "--runs", "1", "--input", d + "empty_tensor.pt"}
                                   << "does not match expected size";
    QTest::newRow("short view --input") << QStringList{"shapes", d + "conv.pt", "--input", d + "short_view.pt"}
                                        << "does not match expected size";
    QTest::newRow("short --input by name") << QStringList{"compare", d + "program.pt2", d + "program.pt2", "--input", "x=" + d + "short_tensor.pt"}
                                           << "does not match expected size";
    QTest::newRow("short weight: .pt2") << QStringList{"info", d + "short_weight.pt2"} << "does not hold the tensor";
  }
  void damagedRecordsAreRefused() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const auto r = runCli(args, 120000);
    checkRefused(r, args.join(QLatin1Char(' ')), mentions);
    QVERIFY(!QFileInfo::exists(damaged_.filePath(QStringLiteral("out.pt"))));
  }

  // A .pt2 whose sample input record is cut short never runs on the garbage past its end (its
  // self-compare said "cosine nan", exit 0): it is refused as damaged, naming the record.
  void damagedSampleInputIsNeverRun() {
    const QString program = damaged_.filePath(QStringLiteral("short_sample.pt2"));
    for (const char* command : {"compare", "info"}) {
      QStringList args{QString::fromLatin1(command), program};
      if (QLatin1String(command) == QLatin1String("compare")) args << program;
      const auto r = runCli(args, 120000);
      checkRefused(r, args.join(QLatin1Char(' ')), QStringLiteral("does not match expected size"));
      QVERIFY2(r.err.contains("sample_inputs"), r.err.constData());
    }
  }

  // Input specs nested thousands deep are refused at once with a message (they overflowed the
  // stack), and fast at any length.
  void deepInputSpecsAreAMessage_data() {
    QTest::addColumn<QString>("spec");
    QTest::newRow("( 20,000 deep") << QString(20000, QLatin1Char('(')) + QStringLiteral("1x3x16x16") + QString(20000, QLatin1Char(')'));
    QTest::newRow("[ 60,000 deep") << QString(60000, QLatin1Char('['));
    QTest::newRow("{ 60,000 deep") << QString(60000, QLatin1Char('{'));
    QTest::newRow("([ 30,000 deep") << QStringLiteral("([").repeated(30000) + QStringLiteral("1") + QStringLiteral("])").repeated(30000);
    QTest::newRow("( 10,000 deep") << QString(10000, QLatin1Char('(')) + QStringLiteral("2x3x16x16") + QString(10000, QLatin1Char(')'));
    QTest::newRow("33 deep") << QString(33, QLatin1Char('[')) + QStringLiteral("1") + QString(33, QLatin1Char(']'));
  }
  void deepInputSpecsAreAMessage() {
    QFETCH(QString, spec);
    QElapsedTimer clock;
    clock.start();
    const QString model = damaged_.filePath(QStringLiteral("conv.pt"));
    for (const char* command : {"compare", "profile", "shapes"}) {
      QStringList args{QString::fromLatin1(command), model, QStringLiteral("--input"), spec};
      if (QLatin1String(command) == QLatin1String("compare")) args.insert(2, model);
      checkRefused(runCli(args, 60000), QStringLiteral("%1 --input (%2 characters)").arg(QLatin1String(command)).arg(spec.size()),
                   QStringLiteral("nests"));
    }
    QVERIFY2(clock.elapsed() < 60000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
  }

  // Rule files nested thousands deep (types, list constants, blocks) are a parse error with a
  // line and column; an invalid glob is a parse error; a replacement whose operators or outputs do
  // not fit is a clear message, never libtorch's INTERNAL ASSERT.
  void badRulesAreParseErrors_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("mentions");
    const QString head = QStringLiteral("id: bad\ntitle: bad\n[pattern]\ngraph(%x):\n");
    const QString identity = QStringLiteral("[replacement]\ngraph(%x):\n  %y = aten::gelu(%x)\n  return (%y)\n");
    const QString relu = QStringLiteral("  %y = aten::relu(%x)\n  return (%y)\n");
    QTest::newRow("type ( 50,000 deep") << head + QStringLiteral("  %y : ") + QString(50000, QLatin1Char('(')) + QStringLiteral("Tensor") +
                                               QString(50000, QLatin1Char(')')) + QStringLiteral(" = aten::relu(%x)\n  return (%y)\n") + identity
                                        << "nest";
    QTest::newRow("constant [ 50,000 deep") << head + QStringLiteral("  %c = prim::Constant[value=") + QString(50000, QLatin1Char('[')) +
                                                   QStringLiteral("1") + QString(50000, QLatin1Char(']')) + QStringLiteral("]()\n") + relu + identity
                                            << "nest";
    QString blocks;
    for (int i = 0; i < 3000; ++i) blocks += QString(2 + 2 * i, QLatin1Char(' ')) + QStringLiteral("%b%1 = prim::If(%c)\n").arg(i) +
                                             QString(3 + 2 * i, QLatin1Char(' ')) + QStringLiteral("block0():\n");
    QTest::newRow("blocks 3,000 deep") << head + blocks + relu + identity << "nest";
    QTest::newRow("glob [") << head + relu + identity + QStringLiteral("[condition]\nmodule ~ [\n") << "glob";
    QTest::newRow("glob a[b") << head + relu + identity + QStringLiteral("[condition]\nmodule ~ layer[1\n") << "glob";
    QTest::newRow("arity: op") << head + relu + QStringLiteral("[replacement]\ngraph(%x):\n  %y = aten::relu(%x, %x, %x)\n  return (%y)\n")
                               << "argument";
    QTest::newRow("arity: inputs") << head + relu + QStringLiteral("[replacement]\ngraph(%x, %z):\n  %y = aten::relu(%x)\n  return (%y)\n")
                                   << "input";
    QTest::newRow("arity: outputs") << head + relu + QStringLiteral("[replacement]\ngraph(%x):\n  %y = aten::relu(%x)\n  return (%y, %x)\n")
                                    << "value";
  }
  void badRulesAreParseErrors() {
    QFETCH(QString, text);
    QFETCH(QString, mentions);
    const QString rule = damaged_.filePath(QStringLiteral("bad.rule"));
    QFile f(rule);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text.toUtf8());
    f.close();
    QElapsedTimer clock;
    clock.start();
    const QString out = damaged_.filePath(QStringLiteral("ruled.pt"));
    const auto r = runCli({QStringLiteral("rewrite"), damaged_.filePath(QStringLiteral("conv.pt")), QStringLiteral("--rule"), rule,
                           QStringLiteral("-o"), out}, 60000);
    checkRefused(r, QTest::currentDataTag(), mentions);
    QVERIFY2(!r.err.contains("INTERNAL ASSERT"), r.err.constData());
    QVERIFY2(r.err.contains("bad.rule:"), r.err.constData());  // located in the file
    QVERIFY(!QFileInfo::exists(out));
    QVERIFY2(clock.elapsed() < 30000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
  }

  // Every path a command reads goes through one input policy: a FIFO never blocks (the model,
  // the journal, a rule, an input), a device is refused, and a /proc file whose size reads 0 is
  // never read without a bound.
  void inputPolicyHoldsForEveryPath_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QString d = damaged_.path() + QLatin1Char('/');
    const QString fifo = d + QStringLiteral("pipe");
    const QString model = d + QStringLiteral("conv.pt"), out = d + QStringLiteral("out.pt");
    QTest::newRow("model: FIFO") << QStringList{"info", fifo} << "not a regular file";
    QTest::newRow("model: /dev/zero") << QStringList{"info", "/dev/zero"} << "not a regular file";
    QTest::newRow("model: /proc/self/pagemap") << QStringList{"info", "/proc/self/pagemap"} << "size of 0";
    QTest::newRow("model: /proc/self/status") << QStringList{"compare", "/proc/self/status", model} << "size of 0";
    QTest::newRow("journal: FIFO") << QStringList{"replay", model, fifo, "-o", out} << "not a regular file";
    QTest::newRow("journal: /dev/zero") << QStringList{"replay", model, "/dev/zero", "-o", out} << "not a regular file";
    QTest::newRow("journal: /proc/self/pagemap") << QStringList{"replay", model, "/proc/self/pagemap", "-o", out} << "size of 0";
    QTest::newRow("rule: FIFO") << QStringList{"rewrite", model, "--rule", fifo, "-o", out} << "not a regular file";
    QTest::newRow("rule: /dev/zero") << QStringList{"rewrite", model, "--rule", "/dev/zero", "-o", out} << "not a regular file";
    QTest::newRow("rule: /proc/self/pagemap") << QStringList{"rewrite", model, "--rule", "/proc/self/pagemap", "-o", out} << "size of 0";
    QTest::newRow("input: /proc/self/pagemap") << QStringList{"shapes", model, "--input", "/proc/self/pagemap"} << "size of 0";
    QTest::newRow("input: /proc/self/environ") << QStringList{"shapes", model, "--input", "/proc/self/environ"} << "size of 0";
    QTest::newRow("input: /dev/urandom") << QStringList{"shapes", model, "--input", "/dev/urandom"} << "not a regular file";
    QTest::newRow("input: FIFO") << QStringList{"profile", model, "--runs", "1", "--input", fifo} << "not a regular file";
  }
  void inputPolicyHoldsForEveryPath() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const QString fifo = damaged_.filePath(QStringLiteral("pipe"));
    if (!QFileInfo::exists(fifo)) QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
    QElapsedTimer clock;
    clock.start();
    checkRefused(runCli(args, 60000), args.join(QLatin1Char(' ')), mentions);
    QVERIFY2(clock.elapsed() < 60000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
    QVERIFY(!QFileInfo::exists(damaged_.filePath(QStringLiteral("out.pt"))));
  }

  // No command writes over a file it reads (the model, another input, a rule; through a symlink
  // or a hard link too) or into a device; the file is left byte for byte as it was.
  void outputPolicyHoldsForEveryCommand_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("mentions");
    const QString d = damaged_.path() + QLatin1Char('/');
    const QString pt = d + "conv.pt", pt2 = d + "program.pt2", input = d + "good_tensor.pt";
    for (const char* option : {"--svg", "--png", "--dot"}) {
      QTest::addRow("layout %s over the .pt2", option) << QStringList{"layout", pt2, QString::fromLatin1(option), pt2} << pt2 << "refusing to overwrite";
      QTest::addRow("layout %s over the .pt", option) << QStringList{"layout", pt, QString::fromLatin1(option), pt} << pt << "refusing to overwrite";
      QTest::addRow("layout %s to /dev/null", option) << QStringList{"layout", pt, QString::fromLatin1(option), "/dev/null"} << QString()
                                                      << "not a regular file";
    }
    QTest::newRow("profile --trace over the .pt") << QStringList{"profile", pt, "--runs", "1", "--input", input, "--trace", pt} << pt
                                                  << "refusing to overwrite";
    QTest::newRow("profile --trace over the input") << QStringList{"profile", pt, "--runs", "1", "--input", input, "--trace", input}
                                                    << input << "refusing to overwrite";
    QTest::newRow("profile --trace to /dev/null") << QStringList{"profile", pt, "--runs", "1", "--input", input, "--trace", "/dev/null"}
                                                  << QString() << "not a regular file";
    QTest::newRow("rewrite -o symlink to the .pt") << QStringList{"rewrite", pt, "--pass", "dead-code-elimination", "-o", d + "link.pt"} << pt
                                                   << "refusing to overwrite";
    QTest::newRow("rewrite -o hard link to the .pt") << QStringList{"rewrite", pt, "--pass", "dead-code-elimination", "-o", d + "hard.pt"} << pt
                                                     << "refusing to overwrite";
    QTest::newRow("rewrite -o the rule file") << QStringList{"rewrite", pt, "--rule", d + "keep.rule", "-o", d + "keep.rule"} << d + "keep.rule"
                                              << "refusing to overwrite";
    QTest::newRow("rewrite -o /dev/null") << QStringList{"rewrite", pt, "--pass", "dead-code-elimination", "-o", "/dev/null"} << QString()
                                          << "not a regular file";
    QTest::newRow("report --html over the .pt2") << QStringList{"report", pt2, "--no-profile", "--html", pt2} << pt2 << "refusing to overwrite";
    QTest::newRow("report --html over --against") << QStringList{"report", pt2, "--against", pt, "--no-profile", "--html", pt} << pt
                                                  << "refusing to overwrite";
    QTest::newRow("precision -o over the .pt") << QStringList{"precision", pt, "--dtype-b", "float16", "-o", pt} << pt << "refusing to overwrite";
    QTest::newRow("reduce -o over the .pt2") << QStringList{"reduce", pt2, "--dtype-b", "float16", "-o", pt2} << pt2 << "refusing to overwrite";
  }
  void outputPolicyHoldsForEveryCommand() {
    QFETCH(QStringList, args);
    QFETCH(QString, target);
    QFETCH(QString, mentions);
    const QString pt = damaged_.filePath(QStringLiteral("conv.pt"));
    const QString link = damaged_.filePath(QStringLiteral("link.pt")), hard = damaged_.filePath(QStringLiteral("hard.pt"));
    if (!QFileInfo::exists(link)) QVERIFY(QFile::link(pt, link));
    if (!QFileInfo::exists(hard)) QVERIFY(::link(QFile::encodeName(pt).constData(), QFile::encodeName(hard).constData()) == 0);
    const QString rule = damaged_.filePath(QStringLiteral("keep.rule"));
    if (!QFileInfo::exists(rule)) QVERIFY(QFile::copy(qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/resources/rules/remove-dropout.rule"), rule));
    auto bytes = [](const QString& path) {
      QFile f(path);
      return f.open(QIODevice::ReadOnly) ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256) : QByteArray();
    };
    const QByteArray before = target.isEmpty() ? QByteArray() : bytes(target);
    checkRefused(runCli(args, 300000), args.join(QLatin1Char(' ')), mentions);
    if (!target.isEmpty()) QCOMPARE(bytes(target), before);
    struct stat st {};
    QVERIFY(::stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
  }

  // A file size limit (`ulimit -f`) with SIGXFSZ left at its default: the save fails with a
  // message, no partial file is left, and the process is not killed by the signal.
  void fileSizeLimitIsAMessage_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("out");
    const QString d = damaged_.path() + QLatin1Char('/');
    QTest::newRow("rewrite .pt") << QStringList{"rewrite", d + "conv.pt", "--pass", "dead-code-elimination", "-o", d + "limited.pt"} << d + "limited.pt";
    QTest::newRow("rewrite .pt2") << QStringList{"rewrite", d + "program.pt2", "--pass", "dead-code-elimination", "-o", d + "limited.pt2"}
                                  << d + "limited.pt2";
    QTest::newRow("layout --svg") << QStringList{"layout", d + "conv.pt", "--svg", d + "limited.svg"} << d + "limited.svg";
  }
  void fileSizeLimitIsAMessage() {
    QFETCH(QStringList, args);
    QFETCH(QString, out);
    QProcess p;
    p.start(QStringLiteral("bash"), QStringList{QStringLiteral("-c"), QStringLiteral("ulimit -f 2; exec \"$0\" \"$@\""), cli()} + args);
    QVERIFY(p.waitForFinished(300000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit, qPrintable(QStringLiteral("killed by a signal: ") + err));
    QCOMPARE(p.exitCode(), 2);
    QVERIFY2(err.startsWith(QLatin1String("graft-cli: error: ")), qPrintable(err));
    QVERIFY(!QFileInfo::exists(out));
  }

  // profile makes the checks compare makes: a program's range_constraints and static dimensions
  // refuse inputs before anything runs.
  void profileChecksTheProgramsRanges_data() {
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("batch above its range") << QStringLiteral("17x3x16x16") << QStringLiteral("range_constraints");
    QTest::newRow("batch below its range") << QStringLiteral("1x3x16x16") << QStringLiteral("range_constraints");
    QTest::newRow("static height") << QStringLiteral("2x3x15x16") << QStringLiteral("not a dynamic dimension");
  }
  void profileChecksTheProgramsRanges() {
    QFETCH(QString, input);
    QFETCH(QString, mentions);
    const QString program = damaged_.filePath(QStringLiteral("program.pt2"));
    checkRefused(runCli({QStringLiteral("profile"), program, QStringLiteral("--runs"), QStringLiteral("1"), QStringLiteral("--input"), input}),
                 QStringLiteral("profile --input ") + input, mentions);
    const auto inRange = runCli({QStringLiteral("profile"), program, QStringLiteral("--runs"), QStringLiteral("1"), QStringLiteral("--input"),
                                 QStringLiteral("16x3x16x16")});
    QVERIFY2(inRange.exitCode == 0, inRange.err.constData());
  }

  // A rewrite that changes a shape is refused before a TorchScript save, as a .pt2 save refuses
  // it: the model would otherwise be written and fail only when run ("expected 8 channels").
  void ptSaveRunsTheRevisionFirst() {
    const QString rule = damaged_.filePath(QStringLiteral("relu-to-channel-sum.rule"));
    QFile f(rule);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("id: relu-to-channel-sum\ntitle: relu to a sum over channels\n[pattern]\ngraph(%x):\n  %y = aten::relu(%x)\n  return (%y)\n"
            "[replacement]\ngraph(%x):\n  %d : int[] = prim::Constant[value=[1]]()\n  %k : bool = prim::Constant[value=1]()\n"
            "  %n : NoneType = prim::Constant()\n  %y = aten::sum(%x, %d, %k, %n)\n  return (%y)\n");
    f.close();
    const QString out = damaged_.filePath(QStringLiteral("summed.pt"));
    const auto r = runCli({QStringLiteral("rewrite"), QStringLiteral("--sample"), QStringLiteral("cnn"), QStringLiteral("--rule"), rule,
                           QStringLiteral("-o"), out});
    checkRefused(r, QStringLiteral("a shape-changing rule saved as .pt"), QStringLiteral("does not run"));
    QVERIFY(!QFileInfo::exists(out));
    const QString kept = damaged_.filePath(QStringLiteral("sigmoid.pt"));
    const auto fine = runCli({QStringLiteral("rewrite"), QStringLiteral("--sample"), QStringLiteral("cnn"), QStringLiteral("--rule"),
                              damaged_.filePath(QStringLiteral("relu-to-sigmoid.rule")), QStringLiteral("-o"), kept});
    QVERIFY2(fine.exitCode == 0, fine.err.constData());
    QVERIFY(QFileInfo::exists(kept));
    QVERIFY2(!fine.err.contains("without a run"), fine.err.constData());  // the sample records its inputs
  }

  // A traced .pt records no inputs (torch.jit.load drops the traced shapes): a changed revision is
  // saved with a warning that it was not run, or run on --input first, which then catches a
  // shape-changing rule as it does for a model with inputs.
  void ptWithoutInputsSaysItWasNotChecked() {
    const QString model = graft::test::testdata(QStringLiteral("resnet18.pt"));
    const QString out = damaged_.filePath(QStringLiteral("r18-sigmoid.pt"));
    // resnet18's relus are in place (aten::relu_).
    const auto writeRule = [&](const QString& name, const QByteArray& replacement) {
      QFile f(damaged_.filePath(name + QStringLiteral(".rule")));
      if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return QString();
      f.write("id: " + name.toUtf8() + "\ntitle: " + name.toUtf8() + "\n[pattern]\ngraph(%x):\n  %y = aten::relu_(%x)\n  return (%y)\n"
              "[replacement]\ngraph(%x):\n" + replacement + "  return (%y)\n");
      return f.fileName();
    };
    const QString rule = writeRule(QStringLiteral("relu_-to-sigmoid"), "  %y = aten::sigmoid(%x)\n");
    const QString sum = writeRule(QStringLiteral("relu_-to-channel-sum"),
                                  "  %d : int[] = prim::Constant[value=[1]]()\n  %k : bool = prim::Constant[value=1]()\n"
                                  "  %n : NoneType = prim::Constant()\n  %y = aten::sum(%x, %d, %k, %n)\n");
    QVERIFY(!rule.isEmpty() && !sum.isEmpty());
    const auto unchecked = runCli({QStringLiteral("rewrite"), model, QStringLiteral("--rule"), rule, QStringLiteral("-o"), out});
    QVERIFY2(unchecked.exitCode == 0, unchecked.err.constData());
    QVERIFY2(unchecked.out.contains("matches"), unchecked.out.constData());
    QVERIFY2(unchecked.err.contains("without a run to check it") && unchecked.err.contains("--input"), unchecked.err.constData());
    QVERIFY(QFileInfo::exists(out));
    const auto checked = runCli({QStringLiteral("rewrite"), model, QStringLiteral("--rule"), rule, QStringLiteral("--input"),
                                 QStringLiteral("1x3x64x64"), QStringLiteral("-o"), out});
    QVERIFY2(checked.exitCode == 0, checked.err.constData());
    QVERIFY2(!checked.err.contains("without a run"), checked.err.constData());
    const QString summed = damaged_.filePath(QStringLiteral("r18-summed.pt"));
    const auto refused = runCli({QStringLiteral("rewrite"), model, QStringLiteral("--rule"), sum, QStringLiteral("--input"),
                                 QStringLiteral("1x3x64x64"), QStringLiteral("-o"), summed});
    checkRefused(refused, QStringLiteral("a shape-changing rule on a traced .pt with --input"), QStringLiteral("does not run"));
    QVERIFY(!QFileInfo::exists(summed));
  }

  // Inputs are checked against the program before they are made: a 6000x3x224x224 input (3.6 GB)
  // for a program that takes [2, 8] is refused at once, without filling it; so is a static size the
  // program was not exported for, and a random input over the 4 GiB bound where the model records
  // no shapes (TorchScript).
  void inputsAreCheckedBeforeTheyAreMade_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    const QString pt2 = dir_.filePath(QStringLiteral("plain.pt2")), pt = dir_.filePath(QStringLiteral("lin.pt"));
    QTest::newRow("compare: rank") << QStringList{"compare", pt2, "--input", "6000x3x224x224"} << "has 4 dimensions; the program takes 2";
    QTest::newRow("shapes: rank") << QStringList{"shapes", pt2, "--input", "6000x3x224x224"} << "has 4 dimensions; the program takes 2";
    QTest::newRow("profile: rank") << QStringList{"profile", pt2, "--runs", "1", "--input", "6000x3x224x224"}
                                   << "has 4 dimensions; the program takes 2";
    QTest::newRow("compare: named") << QStringList{"compare", pt2, "--input", "x=6000x3x224x224"} << "has 4 dimensions";
    QTest::newRow("compare: static size") << QStringList{"compare", pt2, "--input", "400000000x8"}
                                          << "dimension 0 is 400000000; the program was exported for 2";
    QTest::newRow("compare .pt: over 4 GiB") << QStringList{"compare", pt, pt, "--input", "100000x100000"} << "more than 4 GiB";
  }
  void inputsAreCheckedBeforeTheyAreMade() {
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const Measured m = runMeasured(args);
    QVERIFY2(m.exitCode == 2 && m.signal == 0, m.err.constData());
    QVERIFY2(QString::fromUtf8(m.err).contains(mentions), m.err.constData());
    // Loading and refusing take well under a GiB; the input would take 3.6 GB (or 12.8 GB).
    QVERIFY2(m.peakKiB < 1500 * 1024, qPrintable(QStringLiteral("peak %1 MiB").arg(m.peakKiB / 1024)));
    qInfo("%s: %lld ms, peak %ld MiB", qPrintable(args.join(QLatin1Char(' ')).right(60)), m.ms, m.peakKiB / 1024);
  }

  // A tensor file's magic and header are read before its body: a 3 GB sparse file named .npy
  // without the NUMPY magic, a torch.save name without a zip inside, and a .npy whose header
  // describes less data than the file holds are all refused in well under a second, unread.
  void tensorFilesAreCheckedBeforeTheyAreRead_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<QString>("mentions");
    QByteArray npy("\x93NUMPY\x01\x00", 8);
    const QByteArray header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 8), }          \n";
    npy += char(header.size()) + QByteArray(1, '\0') + header;
    QTest::newRow("no magic") << "sparse.npy" << QByteArray() << "no NUMPY magic";
    QTest::newRow("not a zip") << "sparse.pt" << QByteArray() << "does not start as a zip";
    QTest::newRow("3 GB after a [2, 8] header") << "trailing.npy" << npy << "follow the .npy data";
  }
  void tensorFilesAreCheckedBeforeTheyAreRead() {
    QFETCH(QString, name);
    QFETCH(QByteArray, head);
    QFETCH(QString, mentions);
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(head);
    QVERIFY(f.resize(qint64(3) << 30));  // sparse: no disk is used, and no page is read
    f.close();
    QElapsedTimer clock;
    clock.start();
    const auto parsed = graft::core::io::parseInputs({path}, 0);
    const qint64 ms = clock.elapsed();
    QVERIFY(!parsed.inputs);
    QVERIFY2(parsed.error.contains(mentions), qPrintable(parsed.error));
    QVERIFY2(ms < 1000, qPrintable(QStringLiteral("%1 ms").arg(ms)));
    qInfo("%s refused in %lld ms", qPrintable(name), ms);
    const Measured m = runMeasured({QStringLiteral("shapes"), dir_.filePath(QStringLiteral("lin.pt")), QStringLiteral("--input"), path});
    QVERIFY2(m.exitCode == 2 && QString::fromUtf8(m.err).contains(mentions), m.err.constData());
    QVERIFY2(m.peakKiB < 1500 * 1024, qPrintable(QStringLiteral("peak %1 MiB").arg(m.peakKiB / 1024)));
  }

  // An IR rule whose replacement calls an operator libtorch does not have is refused when it is
  // parsed, naming the operator (so `--dry-run` says it too), also inside a prim::If block.
  void unknownOperatorsAreRefusedWhenParsed_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("op");
    QTest::newRow("top level") << "unknown_op.rule" << "graft_missing::frobnicate";
    QTest::newRow("in a block") << "nested_unknown_op.rule" << "aten::relu_but_not_really";
  }
  void unknownOperatorsAreRefusedWhenParsed() {
    QFETCH(QString, rule);
    QFETCH(QString, op);
    const auto parsed = graft::core::rewrite::parseRuleFile(dir_.filePath(rule));
    QVERIFY(!parsed.ok());
    QVERIFY2(parsed.error.message.contains(op), qPrintable(parsed.error.toString()));
    QVERIFY(parsed.error.line > 0);
    const QString lin = dir_.filePath(QStringLiteral("lin.pt"));
    checkRefused(runCli({QStringLiteral("rewrite"), lin, QStringLiteral("--rule"), dir_.filePath(rule), QStringLiteral("--dry-run")}),
                 QStringLiteral("--dry-run ") + rule, op);
    const QString out = dir_.filePath(QStringLiteral("unknown.pt"));
    checkRefused(runCli({QStringLiteral("rewrite"), lin, QStringLiteral("--rule"), dir_.filePath(rule), QStringLiteral("-o"), out}), rule, op);
    QVERIFY(!QFileInfo::exists(out));
  }

  // A rewrite whose result would not load again (a replacement returning an int where forward
  // returns a Tensor) is refused before anything is written, with or without a check run; the
  // same rewrite done by hand in PyTorch gives a file torch.jit.load refuses.
  void typeWrongRewriteIsRefused() {
    const QString lin = dir_.filePath(QStringLiteral("lin.pt")), rule = dir_.filePath(QStringLiteral("type_wrong.rule"));
    for (const QStringList& extra : {QStringList{"--input", "2x8"}, QStringList{}}) {
      const QString out = dir_.filePath(QStringLiteral("tw.pt"));
      const auto r = runCli(QStringList{QStringLiteral("rewrite"), lin, QStringLiteral("--rule"), rule, QStringLiteral("-o"), out} + extra);
      checkRefused(r, QStringLiteral("type_wrong.rule ") + extra.join(QLatin1Char(' ')), QStringLiteral("int"));
      QVERIFY2(r.err.contains("Tensor"), r.err.constData());
      QVERIFY(!QFileInfo::exists(out));
    }
    // The rule itself parses, and a well-typed rule on the same model still saves a file that
    // stock PyTorch loads and runs.
    QVERIFY(graft::core::rewrite::parseRuleFile(rule).ok());
    const QString good = dir_.filePath(QStringLiteral("sigmoid.pt"));
    const auto fine = runCli({QStringLiteral("rewrite"), lin, QStringLiteral("--rule"), damaged_.filePath(QStringLiteral("relu-to-sigmoid.rule")),
                              QStringLiteral("--input"), QStringLiteral("2x8"), QStringLiteral("-o"), good});
    QVERIFY2(fine.exitCode == 0, fine.err.constData());
    QTemporaryFile script;
    QVERIFY(script.open());
    script.write("import sys, torch\nm = torch.jit.load(sys.argv[1])\nprint(tuple(m(torch.randn(2, 8)).shape))\n");
    script.close();
    const auto loaded = graft::test::runPython(script.fileName(), {good});
    QVERIFY2(loaded.exitCode == 0 && loaded.out.contains("(2, 4)"), loaded.err.constData());
  }

  // The CLI's rule for output files: an existing file is replaced (as cp and compilers do); a
  // file the command reads is never written; an output path that is a symbolic link is refused
  // and its target left as it was, for every option that writes a file. Each command's --help
  // says so.
  void outputSymlinksAreRefused_data() {
    QTest::addColumn<QStringList>("args");
    const QString pt = damaged_.filePath(QStringLiteral("conv.pt")), input = damaged_.filePath(QStringLiteral("good_tensor.pt"));
    const QString link = QStringLiteral("@LINK@");
    QTest::newRow("rewrite -o") << QStringList{"rewrite", pt, "--pass", "dead-code-elimination", "-o", link};
    QTest::newRow("replay -o") << QStringList{"replay", "--sample", "mlp", damaged_.filePath(QStringLiteral("empty-journal.json")), "-o", link};
    QTest::newRow("precision -o") << QStringList{"precision", pt, "--dtype-b", "float16", "-o", link};
    QTest::newRow("reduce -o") << QStringList{"reduce", pt, "--dtype-b", "float16", "-o", link + QStringLiteral(".pt2")};
    for (const char* option : {"--svg", "--png", "--dot"})
      QTest::addRow("layout %s", option) << QStringList{"layout", pt, QString::fromLatin1(option), link};
    QTest::newRow("report --html") << QStringList{"report", pt, "--no-profile", "--html", link};
    QTest::newRow("profile --trace") << QStringList{"profile", pt, "--runs", "1", "--input", input, "--trace", link};
  }
  void outputSymlinksAreRefused() {
    QFETCH(QStringList, args);
    QTemporaryDir dir;
    const QString victim = dir.filePath(QStringLiteral("victim.txt"));
    QString link;  // "@LINK@" in the arguments, with the extension the command wants after it
    for (QString& a : args)
      if (a.startsWith(QLatin1String("@LINK@"))) a = link = dir.filePath(QStringLiteral("out.link") + a.mid(6));
    QFile v(victim);
    QVERIFY(v.open(QIODevice::WriteOnly));
    v.write("the user's own file\n");
    v.close();
    QVERIFY(QFile::link(victim, link));
    checkRefused(runCli(args, 300000), args.join(QLatin1Char(' ')), QStringLiteral("symbolic link"));
    QVERIFY(v.open(QIODevice::ReadOnly));
    QCOMPARE(v.readAll(), QByteArray("the user's own file\n"));
    QVERIFY(QFileInfo(link).isSymLink());
    // The help of the command states the rule.
    const auto help = runCli({args.first(), QStringLiteral("--help")});
    QVERIFY2(help.exitCode == 0 && help.out.contains("an existing file is replaced") && help.out.contains("symbolic link"),
             help.out.constData());
  }

  // An existing output file that is not an input is replaced whole, as cp does.
  void existingOutputsAreReplaced() {
    QTemporaryDir dir;
    const QString dot = dir.filePath(QStringLiteral("old.dot"));
    QFile f(dot);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("an older file, longer than nothing\n");
    f.close();
    const auto r = runCli({QStringLiteral("layout"), damaged_.filePath(QStringLiteral("conv.pt")), QStringLiteral("--dot"), dot});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray now = f.readAll();
    QVERIFY2(now.startsWith("digraph") && !now.contains("an older file"), now.left(200).constData());
  }

 private:
  QTemporaryDir dir_;
  QTemporaryDir damaged_;
  QTemporaryDir runtime_;
};

QTEST_GUILESS_MAIN(TestSafety)
#include "tst_safety.moc"
