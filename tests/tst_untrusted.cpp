// A model file is data: opening one runs none of its code, and running one touches nothing outside
// the process unless the user trusts the file. Crafted files (tests/python/make_hostile_files.py)
// each name a MARKER file that must never appear and a VICTIM file that must never change; every
// command runs them as a user would, and with --trust they behave as stock PyTorch does.
#include "test_support.h"

#include "core/io/code_scan.h"
#include "core/io/load.h"
#include "core/model/effect_ops.h"
#include "core/model/document.h"
#include "core/run/outside_effects.h"
#include "ui/document/document_controller.h"
#include "ui/history_dock.h"
#include "ui/main_window.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFileInfo>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <QtWidgets/QWidget>

using graft::test::runCli;

namespace {

QByteArray digest(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

}  // namespace

class TestUntrusted : public QObject {
  Q_OBJECT

  QString file(const QString& name) const { return dir_.filePath(name); }
  QString marker() const { return file(QStringLiteral("MARKER")); }
  QString victim() const { return file(QStringLiteral("VICTIM")); }

  // The command's arguments for `model`: every command that opens or runs a model.
  QStringList commandLine(const QString& command, const QString& model) const {
    const QStringList input{QStringLiteral("--input"), QStringLiteral("2x8")};
    if (command == QLatin1String("compare")) return QStringList{command, model, model} + input;
    if (command == QLatin1String("rewrite"))
      return QStringList{command, model, QStringLiteral("--rule"), QStringLiteral("remove-dropout"), QStringLiteral("-o"),
                         out_.filePath(QStringLiteral("out.") + QFileInfo(model).suffix())} + input;
    if (command == QLatin1String("profile"))
      return QStringList{command, model, QStringLiteral("--runs"), QStringLiteral("2"), QStringLiteral("--warmup"),
                         QStringLiteral("0")} + input;
    if (command == QLatin1String("shapes")) return QStringList{command, model} + input;
    if (command == QLatin1String("diff")) return {command, model, model};
    if (command == QLatin1String("report"))
      return QStringList{command, model, QStringLiteral("--html"), out_.filePath(QStringLiteral("report.html"))} + input;
    if (command == QLatin1String("precision") || command == QLatin1String("reduce"))
      return QStringList{command, model, QStringLiteral("--dtype-b"), QStringLiteral("float16"), QStringLiteral("-o"),
                         out_.filePath(command + QStringLiteral(".pt2"))} + input;
    return {command, model};
  }

  // Untouched: no marker, the victim as made.
  void checkUntouched(const QString& what) {
    QVERIFY2(!QFileInfo::exists(marker()), qPrintable(what + QStringLiteral(": the marker file was written")));
    QVERIFY2(digest(victim()) == victim_, qPrintable(what + QStringLiteral(": the victim file changed")));
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid() && out_.isValid());
    const auto made = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_hostile_files.py"), {dir_.path()});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    victim_ = digest(victim());
    QVERIFY(!victim_.isEmpty());
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
      QVERIFY(runtime_.isValid());
      QFile::setPermissions(runtime_.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
      qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime_.path()));
    }
  }

  // The list comes from libtorch's registry: the ops the crafted files use are on it, everyday
  // ops are not.
  void effectOpsComeFromTheRegistry() {
    const QStringList ops = graft::core::model::outsideEffectOps();
    for (const char* op : {"aten::save", "aten::from_file", "prim::rpc_async", "prim::rpc_sync"})
      QVERIFY2(ops.contains(QLatin1String(op)), op);
    QVERIFY2(std::any_of(ops.begin(), ops.end(), [](const QString& o) { return o.startsWith(QLatin1String("_c10d_functional::")); }),
             "distributed collectives");
    for (const char* op : {"aten::add", "aten::conv2d", "aten::empty", "prim::Print", "aten::einsum", "quantized::conv2d_prepack"})
      QVERIFY2(!ops.contains(QLatin1String(op)), op);
    QVERIFY(!graft::core::model::outsideEffectOf(QStringLiteral("aten::from_file.out")).isEmpty());
  }

  // Opening a TorchScript file whose __setstate__ writes or loops runs nothing, for every command.
  void openingRunsNothing_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("command");
    for (const char* model : {"setstate_writes.pt", "setstate_loops.pt"})
      for (const char* command : {"info", "ir", "layout", "diff", "report", "shapes", "compare", "rewrite", "profile",
                                  "precision", "reduce"})
        QTest::addRow("%s %s", command, model) << QString::fromLatin1(model) << QString::fromLatin1(command);
  }
  void openingRunsNothing() {
    QFETCH(QString, model);
    QFETCH(QString, command);
    QElapsedTimer timer;
    timer.start();
    const auto r = runCli(commandLine(command, file(model)), 120000);
    QVERIFY2(timer.elapsed() < 60000, "it must not hang");
    QCOMPARE(r.exitCode, 2);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.contains(QLatin1String("__setstate__")) && err.contains(QLatin1String("--trust")), qPrintable(err));
    checkUntouched(command + QLatin1Char(' ') + model);
  }

  // A __setstate__ that only sets attributes (as quantized modules' do) opens and runs.
  void plainSetstateOpens() {
    const auto r = runCli({QStringLiteral("compare"), file(QStringLiteral("setstate_benign.pt")),
                           file(QStringLiteral("setstate_benign.pt")), QStringLiteral("--input"), QStringLiteral("2x8")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
  }

  // A run that would call an op reaching outside is refused naming it, wherever the op hides;
  // reading the graph (info, layout) still works.
  void runsStayInside_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("op");
    const QList<std::pair<const char*, const char*>> models{
        {"forward_saves.pt", "aten::save"}, {"forward_maps.pt", "aten::from_file"}, {"branch_saves.pt", "aten::save"},
        {"loop_saves.pt", "aten::save"},    {"method_saves.pt", "aten::save"},      {"save.pt2", "aten::save"},
        {"maps.pt2", "aten::from_file"}};
    for (const auto& [model, op] : models)
      for (const char* command : {"info", "ir", "layout", "diff", "report", "shapes", "compare", "rewrite", "profile",
                                  "precision", "reduce"})
        QTest::addRow("%s %s", command, model) << QString::fromLatin1(model) << QString::fromLatin1(command)
                                               << QString::fromLatin1(op);
  }
  void runsStayInside() {
    QFETCH(QString, model);
    QFETCH(QString, command);
    QFETCH(QString, op);
    const auto r = runCli(commandLine(command, file(model)), 120000);
    const QString err = QString::fromUtf8(r.err);
    static const QStringList reading{QStringLiteral("info"), QStringLiteral("ir"), QStringLiteral("layout"),
                                     QStringLiteral("diff")};
    if (reading.contains(command)) {
      QVERIFY2(r.exitCode == 0, qPrintable(err));
    } else if (command == QLatin1String("report")) {
      // The report is written without the runs, and says why.
      QVERIFY2(r.exitCode == 0 && err.contains(op) && err.contains(QLatin1String("--trust")), qPrintable(err));
    } else {
      QVERIFY2(r.exitCode == 2, qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(err)));
      QVERIFY2(err.contains(op) && err.contains(QLatin1String("--trust")), qPrintable(err));
    }
    checkUntouched(command + QLatin1Char(' ') + model);
  }

  // Code nested deeper than libtorch's compiler can take is refused before it parses: a message,
  // not a stack overflow.
  void deepCodeIsRefused_data() {
    QTest::addColumn<QString>("model");
    QTest::newRow("parentheses") << QStringLiteral("deep_parens.pt");
    QTest::newRow("sum") << QStringLiteral("long_sum.pt");
  }
  void deepCodeIsRefused() {
    QFETCH(QString, model);
    const auto r = runCli({QStringLiteral("info"), file(model)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(QLatin1String("nested deeper")), r.err.constData());
  }

  // The limits leave room: code near them compiles (on the 8 MiB stack a command runs on; stock
  // torch.jit.load overflows it between 5,000 and 20,000 levels).
  void codeAtTheLimitsIsAccepted() {
    const auto r = runCli({QStringLiteral("compare"), file(QStringLiteral("deep_ok.pt")), file(QStringLiteral("deep_ok.pt")),
                           QStringLiteral("--input"), QStringLiteral("2x8")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QByteArray parens = QByteArray(graft::core::io::kMaxCodeNesting - 1, '(') + "x" +
                              QByteArray(graft::core::io::kMaxCodeNesting - 1, ')');
    QVERIFY(graft::core::io::scanCode(QStringLiteral("a.py"), "def f(x):\n  return " + parens + "\n").tooDeep.isEmpty());
    QByteArray sum = "x";
    for (int i = 0; i < graft::core::io::kMaxOperatorsPerLine / 2; ++i) sum += " + x";
    QVERIFY(graft::core::io::scanCode(QStringLiteral("a.py"), "def f(x):\n  return " + sum + "\n").tooDeep.isEmpty());
    QVERIFY(!graft::core::io::scanCode(QStringLiteral("a.py"), "def f(x):\n  return " + sum + sum.mid(1) + sum.mid(1) + "\n")
                 .tooDeep.isEmpty());
  }

  // Load-time code hidden from a line-by-line look: a call split across lines inside brackets, a
  // loop in a comprehension, an effect reached through another method; plain attribute setting passes.
  void scanFindsHiddenLoadTimeCode_data() {
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("finding");
    QTest::newRow("split call") << QByteArray("    _0 = (torch.\n      save(torch.ones([1]), \"m\"))\n") << "calls save";
    QTest::newRow("comprehension") << QByteArray("    _0 = [i for i in range(100000000000)]\n") << "loops";
    QTest::newRow("through a method") << QByteArray("    _0 = (self).helper()\n") << "through __torch__.m.M.helper";
    QTest::newRow("mapped file") << QByteArray("    _0 = torch.from_file(\"v\", True, 8)\n") << "calls from_file";
    QTest::newRow("attributes only") << QByteArray("    self.scale = (state)[0]\n") << QString();
  }
  void scanFindsHiddenLoadTimeCode() {
    QFETCH(QByteArray, body);
    QFETCH(QString, finding);
    const QByteArray code = "class M(Module):\n  def __setstate__(self: __torch__.m.M,\n    state: Tuple[float]) -> NoneType:\n" +
                            body + "    return None\n  def helper(self: __torch__.m.M) -> int:\n"
                            "    torch.save(torch.ones([1]), \"m\")\n    return 1\n";
    const auto scan = graft::core::io::scanCode(QStringLiteral("code/__torch__/m.py"), code);
    QVERIFY(scan.tooDeep.isEmpty());
    if (finding.isEmpty()) {
      QVERIFY2(scan.runsOnLoad.isEmpty(), qPrintable(scan.runsOnLoad.join(QLatin1Char('\n'))));
      return;
    }
    QCOMPARE(scan.runsOnLoad.size(), 1);
    QVERIFY2(scan.runsOnLoad.front().startsWith(QLatin1String("__torch__.m.M.__setstate__")) &&
                 scan.runsOnLoad.front().contains(finding),
             qPrintable(scan.runsOnLoad.front()));
  }

  // --trust: the same files behave as stock PyTorch does (torch.jit.load runs __setstate__; a run
  // calls torch.save).
  void trustRunsAsStockPyTorch() {
    auto opened = runCli({QStringLiteral("info"), QStringLiteral("--trust"), file(QStringLiteral("setstate_writes.pt"))});
    QVERIFY2(opened.exitCode == 0, opened.err.constData());
    QVERIFY(QFileInfo::exists(marker()));
    QVERIFY(digest(victim()) != victim_);
    QFile::remove(marker());
    const auto ran = runCli({QStringLiteral("compare"), QStringLiteral("--trust"), file(QStringLiteral("forward_saves.pt")),
                             file(QStringLiteral("forward_saves.pt")), QStringLiteral("--input"), QStringLiteral("2x8")});
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    QVERIFY(QFileInfo::exists(marker()));
    QFile::remove(marker());
    // Put the victim back for the tests after this one.
    QFile v(victim());
    QVERIFY(v.open(QIODevice::WriteOnly));
    QByteArray bytes(64, 0);
    for (int i = 0; i < 64; ++i) bytes[i] = char(i);
    v.write(bytes);
    v.close();
    QCOMPARE(digest(victim()), victim_);
  }

  // --timeout ends a run that never ends: exit 2 with the reason, soon after the limit.
  void timeoutEndsEndlessRuns() {
    QElapsedTimer timer;
    timer.start();
    const auto r = runCli({QStringLiteral("compare"), file(QStringLiteral("forever.pt")), file(QStringLiteral("forever.pt")),
                           QStringLiteral("--input"), QStringLiteral("2x8"), QStringLiteral("--timeout"), QStringLiteral("3")},
                          120000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("ran longer than 3 s"), r.err.constData());
    QVERIFY2(timer.elapsed() < 30000, "stopped soon after the limit");
  }

  // Opening a program whose graph saves a file in the window: the History ledger's background
  // check of the original is refused naming the op, and nothing is written.
  void windowOpenRunsNothing() {
    graft::ui::MainWindow window;
    QVERIFY(window.openFile(file(QStringLiteral("save.pt2"))));
    QTRY_VERIFY_WITH_TIMEOUT(window.parts().docks->history->ledgerEntry(0), 60000);
    const auto* entry = window.parts().docks->history->ledgerEntry(0);
    QVERIFY(!entry->ok);
    QVERIFY2(entry->error.contains(QLatin1String("aten::save")), qPrintable(entry->error));
    checkUntouched(QStringLiteral("window open of save.pt2"));
  }

  // The window: opening asks before anything runs and names what would run; no keeps it closed;
  // a refused run is trusted through Run > Trust This Model, which names the op.
  void windowAsksBeforeTrusting() {
    QWidget window;
    graft::ui::DocumentController controller(&window);
    QString asked;
    bool answer = false;
    controller.setTrustPrompt([&](const QString& what) {
      asked = what;
      return answer;
    });
    QVERIFY(!controller.openFile(file(QStringLiteral("setstate_writes.pt"))));
    QVERIFY2(asked.contains(QLatin1String("__setstate__")), qPrintable(asked));
    QVERIFY(!controller.document());
    checkUntouched(QStringLiteral("window open, answered no"));

    asked.clear();
    QVERIFY(controller.openFile(file(QStringLiteral("forward_saves.pt"))));
    QVERIFY(asked.isEmpty());  // opening a file whose forward saves runs nothing: nothing to ask
    const auto revision = controller.document()->current();
    QVERIFY(!graft::core::run::untrustedRunRefusal(*revision).isEmpty());
    QVERIFY(!controller.trustSource());
    QVERIFY2(asked.contains(QLatin1String("aten::save")), qPrintable(asked));
    answer = true;
    QVERIFY(controller.trustSource());
    QVERIFY(graft::core::run::untrustedRunRefusal(*revision).isEmpty());
    checkUntouched(QStringLiteral("window trust"));
  }

 private:
  QTemporaryDir dir_, out_, runtime_;
  QByteArray victim_;
};

QTEST_MAIN(TestUntrusted)
#include "tst_untrusted.moc"
