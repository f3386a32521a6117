// Bad input never takes the process down and never reads or writes wrong bytes: a torch.export
// program run on inputs libtorch refuses, compressed archive records, a future export schema,
// input paths that are devices or pipes, outputs that are devices, a full disk while saving,
// and records a saved program does not need. Each case runs graft-cli as a user would.
#include "test_support.h"

#include <QtCore/QFileInfo>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <sys/stat.h>

using graft::test::runCli;

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

 private:
  QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestSafety)
#include "tst_safety.moc"
