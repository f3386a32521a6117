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
    const auto variants = graft::test::runPython(
        qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/tests/python/make_setstate_variants.py"), {dir_.path()});
    QVERIFY2(variants.exitCode == 0, variants.err.constData());
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

  // Load-time code in forms a text scan misses (tests/python/make_setstate_variants.py: each one
  // stock torch.jit.load compiles and runs, writing the marker, filling the victim or looping):
  // refused from the compiled program, naming __setstate__, and nothing runs.
  void setstateVariantsAreRefused_data() {
    QTest::addColumn<QString>("model");
    QFile list(file(QStringLiteral("variants.txt")));
    QVERIFY(list.open(QIODevice::ReadOnly));
    const QStringList paths = QString::fromUtf8(list.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const char* required : {"call_parenthesized", "comment_before_paren", "comment_after_dot", "one_line_def",
                                 "dedented_continuation", "with_enter", "from_file_dedented", "free_function",
                                 "loop_through_helper", "comprehension_dedented", "matrix_power", "repeated_list",
                                 "with_calls_helper", "random_0"})
      QVERIFY2(std::any_of(paths.begin(), paths.end(),
                           [&](const QString& p) {
                             return p.endsWith(QStringLiteral("variant_%1.pt").arg(QLatin1String(required)));
                           }),
               required);
    for (const QString& path : paths) QTest::newRow(qPrintable(QFileInfo(path).completeBaseName())) << path;
  }
  void setstateVariantsAreRefused() {
    QFETCH(QString, model);
    QElapsedTimer timer;
    timer.start();
    const auto r = runCli({QStringLiteral("info"), model}, 60000);
    QVERIFY2(timer.elapsed() < 30000, "it must not hang");
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(r.exitCode == 2 && err.contains(QLatin1String("__setstate__")) &&
                 err.contains(QLatin1String("--trust")),
             qPrintable(err));
    checkUntouched(model);
  }

  // The variants' own base (a __setstate__ that sets attributes) and a quantized-style packing
  // still open: the check is not a refusal of every __setstate__.
  void compiledCheckLetsPlainSetstateThrough() {
    const auto r = runCli({QStringLiteral("info"), file(QStringLiteral("variant_base.pt"))});
    QVERIFY2(r.exitCode == 0, r.err.constData());
  }

  // A `with` block in forward runs node by node (shapes, per-node compare, float16, reduce) as
  // stock PyTorch runs it, and its __enter__ is checked before a run like any other call.
  void withBlocksRunNodeByNode() {
    const QString model = file(QStringLiteral("with_no_grad.pt"));
    const QStringList input{QStringLiteral("--input"), QStringLiteral("2x8")};
    const auto shapes = runCli(QStringList{QStringLiteral("shapes"), model, QStringLiteral("--json")} + input);
    QVERIFY2(shapes.exitCode == 0, shapes.err.constData());
    QVERIFY2(shapes.out.contains("aten::tanh"), shapes.out.left(400).constData());
    const auto perNode = runCli(QStringList{QStringLiteral("compare"), model, model, QStringLiteral("--per-node")} + input);
    QVERIFY2(perNode.exitCode == 0, perNode.err.constData());
    const auto half = runCli(QStringList{QStringLiteral("compare"), model, model, QStringLiteral("--dtype-b"),
                                         QStringLiteral("float16")} + input);
    QVERIFY2(half.exitCode == 0 || half.exitCode == 1, half.err.constData());
    QVERIFY2(QString::fromUtf8(half.out + half.err).contains(QLatin1String("float16")), half.out.constData());
    const auto reduce = runCli(QStringList{QStringLiteral("reduce"), model, QStringLiteral("--dtype-b"),
                                           QStringLiteral("float16"), QStringLiteral("-o"),
                                           out_.filePath(QStringLiteral("with_reduced.pt2"))} + input);
    QVERIFY2(reduce.exitCode == 0 || reduce.exitCode == 1, reduce.err.constData());
    // Graft's outputs are stock PyTorch's: the reference run of tests/python/check_outputs.py.
    const auto saved = runCli(QStringList{QStringLiteral("rewrite"), model, QStringLiteral("--pass"),
                                          QStringLiteral("dead-code-elimination"), QStringLiteral("-o"),
                                          out_.filePath(QStringLiteral("with_dce.pt"))} + input);
    QVERIFY2(saved.exitCode == 0, saved.err.constData());
    const QString dce = out_.filePath(QStringLiteral("with_dce.pt"));
    const auto same = runCli(QStringList{QStringLiteral("compare"), model, dce, QStringLiteral("--per-node")} + input);
    QVERIFY2(same.exitCode == 0, same.err.constData());
    const auto entered = runCli(QStringList{QStringLiteral("compare"), file(QStringLiteral("with_enter_saves.pt")),
                                            file(QStringLiteral("with_enter_saves.pt"))} + input);
    QCOMPARE(entered.exitCode, 2);
    QVERIFY2(QString::fromUtf8(entered.err).contains(QLatin1String("aten::save")), entered.err.constData());
    checkUntouched(QStringLiteral("with_enter_saves.pt"));
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
