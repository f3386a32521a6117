// The first GUI: opening samples and files, the error box for bad files, selection sync between
// the module tree and the IR view, and a screenshot for people to look at.
#include "core/edit/session.h"
#include "core/edit/graph_diff.h"
#include "core/io/load.h"
#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "ui/edit_actions.h"
#include "test_support.h"
#include "gui_support.h"
#include "core/report/versions.h"
#include "core/run/threads.h"
#include "ui/run_settings.h"
#include "core/edit/edit.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"
#include "ui/ir_view.h"
#include "ui/document/abandonable.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"
#include "ui/module_tree.h"
#include "ui/issues_dock.h"
#include "ui/compare_dock.h"
#include "ui/op_palette_dialog.h"
#include <QtWidgets/QListWidget>

#include <QtCore/QSettings>
#include <QtTest/QtTest>
#include <QtGui/QTextBlock>
#include <QtWidgets/QMenu>
#include <QtWidgets/QMenuBar>
#include <QtWidgets/QMessageBox>
#include <QtWidgets/QProgressDialog>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QStatusBar>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QTextBrowser>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtCore/QJsonDocument>
#include <optional>

using graft::ui::MainWindow;

class TstMainWindow : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("GraftTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
  }
  void opensSampleFromMenu() {
    MainWindow w;
    w.show();
    auto* menu = w.findChild<QMenu*>(QStringLiteral("samplesMenu"));
    QVERIFY(menu);
    QCOMPARE(menu->actions().size(), 3);
    QSignalSpy opened(&w, &MainWindow::documentOpened);
    menu->actions().front()->trigger();
    QCOMPARE(opened.count(), 1);
    QVERIFY(w.controller()->document());
    QCOMPARE(w.controller()->document()->sampleName(), QStringLiteral("cnn"));
    auto* ir = w.findChild<graft::ui::IrView*>(QStringLiteral("irView"));
    QVERIFY(ir->toPlainText().startsWith(QStringLiteral("graph(")));
    QVERIFY(w.windowTitle().contains(QStringLiteral("sample:cnn")));
  }
  void badFileShowsErrorAndKeepsDocument() {
    MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("mlp")));
    auto* before = w.controller()->document();
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    QVERIFY(!w.openFile(graft::test::testdata(QStringLiteral("bad/state_dict.pt"))));
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.front().front().toString().contains(QStringLiteral("state_dict")));
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("errorDialog"));
    QVERIFY(box);
    QVERIFY(box->informativeText().contains(QStringLiteral("torch.jit.trace")));
    QCOMPARE(w.controller()->document(), before);  // nothing lost
    box->close();
  }
  // A program past the reader's limits (1,000,000 nodes) gets the error box naming the limit,
  // and the window goes on (it once crashed in Qt's JSON parser).
  void oversizedProgramIsAnError() {
    QTemporaryDir dir;
    const auto made = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") +
                                                 QStringLiteral("/tests/python/make_size_bombs.py"),
                                             {dir.path(), QStringLiteral("many_nodes.pt2")});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    MainWindow w;
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    QVERIFY(!w.openFile(dir.filePath(QStringLiteral("many_nodes.pt2"))));
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.front().front().toString().contains(QStringLiteral("200,000")),
             qPrintable(failed.front().front().toString()));
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("errorDialog"));
    QVERIFY(box);
    box->close();
    QVERIFY(w.openSample(QStringLiteral("mlp")));
  }

  // An open that takes long offers Cancel: the window is usable at once and says so, while the
  // abandoned load runs to its end on its own thread and is dropped there.
  void slowOpenCanBeCancelled() {
    QTemporaryDir dir;
    const auto made = graft::test::runPython(qEnvironmentVariable("GRAFT_SOURCE_DIR") +
                                                 QStringLiteral("/tests/python/make_slow_open.py"),
                                             {dir.path()});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("mlp")));
    const auto* before = w.controller()->document();
    QSignalSpy cancelled(w.controller(), &graft::ui::DocumentController::loadCancelled);
    QElapsedTimer timer;
    timer.start();
    QTimer::singleShot(2000, w.controller(), [&] {
      // The dialog with Cancel is up by now; its Cancel abandons the open.
      auto* dialog = w.findChild<QProgressDialog*>();
      QVERIFY(dialog && dialog->isVisible());
      auto* cancel = dialog->findChild<QPushButton*>();
      QVERIFY(cancel && cancel->text() == QStringLiteral("Cancel"));
      cancel->click();
    });
    // Trusted, so its __setstate__ (a count to 100 million, many seconds) runs while it loads.
    QVERIFY(!w.controller()->openFile(dir.filePath(QStringLiteral("slow_open.pt")), true, true));
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!w.controller()->busy());
    QCOMPARE(w.controller()->document(), before);
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("cancelled")),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(graft::ui::abandonedWorkRunning() == 1);
    QVERIFY(w.openSample(QStringLiteral("cnn")));  // usable while the load runs on
    const auto* cnn = w.controller()->document();
    QTRY_VERIFY_WITH_TIMEOUT(graft::ui::abandonedWorkRunning() == 0, 120000);
    QCOMPARE(w.controller()->document(), cnn);  // the dropped result replaced nothing
  }

  void selectionSyncsTreeAndIr() {
    MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    const auto* view = w.view();
    const auto& conv = view->nodes.front();
    auto* tree = w.findChild<graft::ui::ModuleTree*>();
    auto* ir = w.findChild<graft::ui::IrView*>(QStringLiteral("irView"));
    w.selectNode(conv.id);
    QCOMPARE(ir->textCursor().blockNumber(), conv.irLine);
    QCOMPARE(tree->currentItem()->text(0), conv.op);
    // Clicking a line in the IR selects that node.
    const auto& last = view->nodes.back();
    QSignalSpy sel(&w, &MainWindow::selectionChanged);
    QTextCursor c(ir->document()->findBlockByNumber(last.irLine));
    ir->setTextCursor(c);
    const QRect r = ir->cursorRect(c);
    QTest::mouseClick(ir->viewport(), Qt::LeftButton, {}, r.center());
    QCOMPARE(w.selectedNode(), last.id);
  }
  void canvasOutlinesWhatTheRevisionChanged() {
    MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* scene = w.findChild<graft::ui::canvas::GraphCanvas*>()->graphScene();
    QVERIFY(scene->changes().isEmpty());  // revision 0 has no parent
    graft::core::model::NodeId relu = 0;
    for (const auto& n : w.view()->nodes)
      if (n.kind == QLatin1String("aten::relu") && n.modulePath == QLatin1String("block1.relu")) relu = n.id;
    QVERIFY(relu);
    auto* doc = w.controller()->document();
    QVERIFY(w.parts().edits->applyEdit(graft::core::edit::ReplaceOp{relu, QStringLiteral("aten::gelu")}, false));
    // The canvas outlines what the Diff view and History list (core/edit/graph_diff).
    const auto d = graft::core::edit::diffGraphs(*doc->original(), *doc->current(), graft::core::edit::DiffMatching::ByProvenance);
    graft::core::model::NodeId gelu = 0;
    for (const auto& a : d.added) {
      QCOMPARE(scene->changes().value(a.node), graft::ui::canvas::GraphScene::Change::Added);
      if (const auto* n = w.view()->node(a.node); n && n->kind == QLatin1String("aten::gelu")) gelu = a.node;
    }
    QVERIFY(gelu);
    for (const auto& c : d.changed) QCOMPARE(scene->changes().value(c.node), graft::ui::canvas::GraphScene::Change::Modified);
    QCOMPARE(scene->changes().size(), int(d.added.size() + d.changed.size()));
    // The collapsed top-level group holding the new gelu is marked too.
    int group = w.view()->node(gelu)->group;
    while (w.view()->groups[group].parent > 0) group = w.view()->groups[group].parent;
    QVERIFY(scene->groupHasChange(group));
    auto* canvas = w.findChild<graft::ui::canvas::GraphCanvas*>();
    w.resize(1400, 900);
    canvas->expandAll();
    QTRY_VERIFY(!canvas->layoutPending());
    canvas->revealNode(gelu);
    QTest::qWait(100);
    QDir().mkpath(graft::test::testdata(QStringLiteral("screenshots")));
    QVERIFY(w.grab().save(graft::test::testdata(QStringLiteral("screenshots/changes_cnn.png"))));
    w.controller()->undo();
    QVERIFY(scene->changes().isEmpty());
  }
  // Names a person reads: the revision a Replace Op makes is titled by module path and op (no
  // internal node id), and the status bar counts "1 node", "2 nodes".
  void namesAPersonReads() {
    MainWindow w;
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    graft::core::model::NodeId relu = 0, conv = 0;
    for (const auto& n : w.view()->nodes) {
      if (n.kind == QLatin1String("aten::relu") && n.modulePath == QLatin1String("block1.relu")) relu = n.id;
      if (!conv && n.kind.contains(QLatin1String("conv"))) conv = n.id;
    }
    QVERIFY(relu && conv);
    QVERIFY(w.parts().edits->applyEdit(graft::core::edit::ReplaceOp{relu, QStringLiteral("aten::gelu")}, false));
    const QString title = w.controller()->document()->current()->name();
    QCOMPARE(title, QStringLiteral("Replace block1.relu (aten::relu) by aten::gelu"));
    QVERIFY(!title.contains(QRegularExpression(QStringLiteral("node \\d"))));
    QVERIFY2(w.statusBar()->currentMessage().contains(title), qPrintable(w.statusBar()->currentMessage()));
    QVERIFY2(!w.statusBar()->currentMessage().contains(QRegularExpression(QStringLiteral("\\b1 (ops|modules|nodes)\\b"))),
             qPrintable(w.statusBar()->currentMessage()));
    graft::core::model::NodeId gelu = 0;
    for (const auto& n : w.view()->nodes)
      if (n.kind == QLatin1String("aten::gelu")) gelu = n.id;
    w.selectNode(gelu);
    w.pickNode(conv);
    QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("2 nodes selected (Ctrl+click adds or removes one)"));
    w.pickNode(conv);
    QCOMPARE(w.statusBar()->currentMessage(), QStringLiteral("1 node selected (Ctrl+click adds or removes one)"));
  }
  // A traced .pt records no shapes: the status bar says how to get them, and once its inputs are
  // known (Compare's field) one background run labels every tensor edge, as torchvision's ResNet
  // computes them. On a .pt2, a node an edit inserts gets shapes on its edges the same way.
  // Replace Op / Insert Op list common ops first and no distributed collectives unless asked for.
  void opListStartsWithCommonOps() {
    graft::ui::OpPaletteDialog dialog(QStringLiteral("Replace"), QString());
    auto* list = dialog.findChild<QListWidget*>(QStringLiteral("opList"));
    QVERIFY(list && list->count() > 10);
    QCOMPARE(list->item(0)->data(Qt::UserRole).toString(), QStringLiteral("aten::relu"));
    for (int i = 0; i < list->count(); ++i)
      QVERIFY2(!list->item(i)->text().contains(QLatin1String("c10d")), qPrintable(list->item(i)->text()));
  }

  void shapesOnEveryEdge() {
    const auto unshaped = [](const graft::core::model::GraphView& view) {
      int n = 0;
      for (const auto& e : view.edges) n += e.type == QLatin1String("Tensor") ? 1 : 0;
      return n;
    };
    MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    QVERIFY(unshaped(*w.view()) > 0);
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("View > Show Shapes on Edges")), qPrintable(w.statusBar()->currentMessage()));
    // Still said once the layout is done ("Layout…" does not end it).
    QVERIFY(graft::test::waitLayout(w.canvas()));
    QApplication::processEvents();
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("View > Show Shapes on Edges")), qPrintable(w.statusBar()->currentMessage()));
    w.compareDock()->setInputSpec(QStringLiteral("1x3x224x224"));
    w.showShapes();
    QTRY_VERIFY_WITH_TIMEOUT(unshaped(*w.view()) == 0, 60000);
    QCOMPARE(w.view()->graphOutputs.front().type, QStringLiteral("float32 [1, 1000]"));
    graft::core::model::NodeId stem = 0;
    for (const auto& e : w.view()->edges) {
      const auto* from = w.view()->node(e.from);
      if (from && from->modulePath == QLatin1String("conv1") && e.type == QLatin1String("float32 [1, 64, 112, 112]")) stem = from->id;
    }
    QVERIFY(stem);
    if (const QString dir = qEnvironmentVariable("GRAFT_SCREENSHOT_DIR"); !dir.isEmpty()) {
      w.resize(1366, 768);
      w.show();
      w.canvas()->expandAll();
      QTest::qWait(500);
      w.canvas()->revealNode(stem);
      QTest::qWait(500);
      w.grab().save(dir + QStringLiteral("/traced_shapes.png"));
    }

    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("pt2/resnet18.pt2"))));
    QCOMPARE(unshaped(*w.view()), 0);
    graft::core::model::NodeId fc = 0;
    for (const auto& n : w.view()->nodes)
      if (n.modulePath == QLatin1String("fc")) fc = n.id;
    QVERIFY(fc);
    QVERIFY(w.parts().edits->applyEdit(graft::core::edit::InsertOp{fc, 0, QStringLiteral("aten::relu"), {}}, false));
    QTRY_VERIFY_WITH_TIMEOUT(unshaped(*w.view()) == 0, 60000);
    int reluEdges = 0;
    for (const auto& e : w.view()->edges) {
      const auto* from = w.view()->node(e.from);
      if (from && from->kind == QLatin1String("aten::relu") && e.to == fc) reluEdges += e.type == QLatin1String("float32 [1, 512]") ? 1 : 0;
    }
    QCOMPARE(reluEdges, 1);
  }
  void aboutNamesLoadedLibraries() {
    MainWindow w;
    w.show();
    auto* help = w.menuBar()->actions().last()->menu();
    for (auto* a : help->actions())  // after Guided Tours and Open Tour…
      if (a->text() == QStringLiteral("&About Graft")) a->trigger();
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("aboutDialog"));
    QVERIFY(box);
    for (const char* s : {"Qt", "libtorch", "Graphviz", "CUDA", "libtorch_cpu", "torchvision ops", "Threads"})
      QVERIFY2(box->text().contains(QString::fromLatin1(s)), s);
    QVERIFY(box->text().contains(QString::fromLatin1(qVersion())));
    // The libtorch actually loaded, by its package's own version ("2.14.1+cu130").
    const auto v = graft::core::report::versions();
    QVERIFY2(v.torch.startsWith(QStringLiteral("2.")), qPrintable(v.torch));
    QVERIFY(box->text().contains(v.torch));
    QVERIFY(v.torchvisionLoaded);
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    QVERIFY(box->grab().save(out + QStringLiteral("/about.png")));
    box->close();
  }
  // A program opened in the GUI saves as a program that opens again, with its op count.
  void savesAProgramAsAProgram() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("pt2/resnet18.pt2"))));
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("saved.pt2"));
    QVERIFY(w.controller()->saveAs(out));
    auto reopened = graft::core::io::loadFile(out);
    QVERIFY2(reopened.ok(), qPrintable(reopened.error.message()));
    QCOMPARE(reopened.document->format(), QStringLiteral("pt2"));
    QCOMPARE(graft::core::model::GraphView::build(*reopened.document->current()).opCount(), w.view()->opCount());
  }
  // A program's IR dock lists its fx graph; the Code dock its Python. Selecting a node puts both
  // on its line, and clicking a line in the Code view selects the node defined there.
  void programShowsFxGraphAndCode() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("pt2/cond.pt2"))));
    auto* ir = w.findChild<graft::ui::IrView*>(QStringLiteral("irView"));
    auto* code = w.findChild<graft::ui::IrView*>(QStringLiteral("codeView"));
    QVERIFY(ir && code);
    QVERIFY(ir->toPlainText().startsWith(QStringLiteral("graph():")));
    QVERIFY(code->toPlainText().contains(QStringLiteral("def forward(self, p_fc_weight, p_fc_bias, x):")));
    const auto* view = w.view();
    const auto sigmoid = std::find_if(view->nodes.begin(), view->nodes.end(), [](const auto& n) { return n.op == QLatin1String("sigmoid"); });
    QVERIFY(sigmoid != view->nodes.end());  // a node of the false branch, shown in its group
    QCOMPARE(view->groups[sigmoid->group].name, QStringLiteral("false_graph_0"));
    w.selectNode(sigmoid->id);
    QVERIFY(ir->textCursor().block().text().contains(QStringLiteral("%sigmoid : [num_users=1] = call_function[target=torch.ops.aten.sigmoid.default]")));
    QVERIFY(code->textCursor().block().text().trimmed().startsWith(QStringLiteral("sigmoid = torch.ops.aten.sigmoid.default(")));
    const auto sum = std::find_if(view->nodes.begin(), view->nodes.end(), [](const auto& n) { return n.op == QLatin1String("sum"); });
    QVERIFY(sum != view->nodes.end());
    QTextCursor c(code->document()->find(QStringLiteral("sum_1 = torch.ops.aten.sum.default(x)")));
    QVERIFY(!c.isNull());
    code->setTextCursor(c);
    QTest::mouseClick(code->viewport(), Qt::LeftButton, {}, code->cursorRect(c).center());
    QCOMPARE(w.selectedNode(), sum->id);
  }
  // A program's symbolic dimension is shown by name, with its range in the tooltip.
  void symbolicDimensionsShowTheirRange() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("pt2/dynamic_batch.pt2"))));
    auto* canvas = w.findChild<graft::ui::canvas::GraphCanvas*>();
    const auto& nodes = w.view()->nodes;
    const auto linear = std::find_if(nodes.begin(), nodes.end(), [](const auto& n) { return n.op == QLatin1String("linear"); });
    QVERIFY(linear != nodes.end());
    canvas->revealNode(linear->id);  // it sits in the collapsed `fc`
    QTRY_VERIFY(!canvas->layoutPending());
    auto* scene = canvas->graphScene();
    QString tip;
    for (auto* item : scene->items())
      if (auto* n = dynamic_cast<graft::ui::canvas::NodeItem*>(item); n && w.view()->node(n->id())->op == QLatin1String("linear"))
        tip = scene->toolTipAt(n->sceneBoundingRect().center());
    QVERIFY2(tip.contains(QStringLiteral("float32 [s77, 4]")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("2 ≤ s77 ≤ 64")), qPrintable(tip));
  }
  // Run > Threads is kept in the settings and applied at start-up.
  void savedThreadsAreApplied() {
    QSettings settings;
    const QVariant before = settings.value(QStringLiteral("run/threads"));
    settings.setValue(QStringLiteral("run/threads"), 1);
    graft::ui::applySavedThreads();
    QCOMPARE(graft::core::run::currentThreads(), 1);
    settings.setValue(QStringLiteral("run/threads"), 0);  // 0: one per physical core
    graft::ui::applySavedThreads();
    QCOMPARE(graft::core::run::currentThreads(), graft::core::run::physicalCores());
    if (before.isValid()) settings.setValue(QStringLiteral("run/threads"), before);
    else settings.remove(QStringLiteral("run/threads"));
    MainWindow w;
    QVERIFY(w.findChild<QAction*>(QStringLiteral("threadsAction")));
  }
  // The Issues dock records a load error, a rule file that does not parse and a refused edit;
  // clicking the refusal's row reveals and selects its node; Clear empties it.
  void issuesDockRecordsJobsAndSelectsNodes() {
    using graft::core::model::Diagnostic;
    using graft::core::model::Severity;
    QTemporaryDir rules;
    QFile rule(rules.filePath(QStringLiteral("broken.rule")));
    QVERIFY(rule.open(QIODevice::WriteOnly));
    rule.write("id: broken\ntitle: Broken\n[pattern]\ngraph(%x):\n  %r = aten::relu(%x\n  return (%r)\n"
               "[replacement]\ngraph(%x):\n  return (%x)\n");
    rule.close();
    qputenv("GRAFT_RULES_DIR", rules.path().toUtf8());
    MainWindow w;
    qunsetenv("GRAFT_RULES_DIR");
    w.resize(1366, 768);
    w.show();
    auto* issues = w.parts().docks->issues;
    QVERIFY(issues);
    QCOMPARE(issues->objectName(), QStringLiteral("issuesDock"));
    auto find = [&](const QString& job) -> std::optional<std::pair<int, Diagnostic>> {
      const auto& ds = issues->diagnostics();
      for (int i = 0; i < int(ds.size()); ++i)
        if (ds[i].job == job) return std::make_pair(i, ds[i]);
      return std::nullopt;
    };
    const auto ruleIssue = find(QStringLiteral("rewrite"));
    QVERIFY(ruleIssue);
    QCOMPARE(ruleIssue->second.severity, Severity::Error);
    QCOMPARE(ruleIssue->second.file, rule.fileName());
    QVERIFY(ruleIssue->second.line >= 5);

    const QString bad = graft::test::testdata(QStringLiteral("bad/state_dict.pt"));
    QVERIFY(!w.openFile(bad));
    if (auto* box = w.findChild<QMessageBox*>(QStringLiteral("errorDialog"))) box->close();  // still shown at once
    const auto loadIssue = find(QStringLiteral("load"));
    QVERIFY(loadIssue);
    QCOMPARE(loadIssue->second.file, bad);
    QVERIFY(loadIssue->second.message.contains(QStringLiteral("state_dict")));
    QVERIFY(loadIssue->second.hint.contains(QStringLiteral("torch.jit.trace")));

    QVERIFY(w.openSample(QStringLiteral("cnn")));
    graft::core::model::NodeId conv1 = graft::core::model::kNoNode;
    int convs = 0;
    for (const auto& n : w.view()->nodes)
      if (n.kind == QLatin1String("aten::conv2d") && convs++ == 1) conv1 = n.id;
    QVERIFY(conv1 != graft::core::model::kNoNode);
    QVERIFY(!w.parts().edits->applyEdit(graft::core::edit::DeleteNode{conv1}, false));
    const auto editIssue = find(QStringLiteral("edit"));
    QVERIFY(editIssue);
    QCOMPARE(editIssue->second.node, conv1);
    // A revision whose outputs differ: the comparison's warning names the first divergence.
    graft::core::model::NodeId relu = graft::core::model::kNoNode;
    for (const auto& n : w.view()->nodes)
      if (n.kind == QLatin1String("aten::relu")) { relu = n.id; break; }
    QVERIFY(w.parts().edits->applyEdit(graft::core::edit::ReplaceOp{relu, QStringLiteral("aten::gelu")}, false));
    QSignalSpy compared(w.compareDock(), &graft::ui::CompareDock::finished);
    w.compareDock()->start();
    QVERIFY(compared.count() == 1 || compared.wait(120000));
    const auto compareIssue = find(QStringLiteral("compare"));
    QVERIFY(compareIssue);
    QCOMPARE(compareIssue->second.severity, Severity::Warning);
    // The replacement (a new node) is where the outputs part.
    QVERIFY(w.view()->node(compareIssue->second.node));
    QCOMPARE(w.view()->node(compareIssue->second.node)->kind, QStringLiteral("aten::gelu"));
    QCOMPARE(issues->table()->rowCount(), int(issues->diagnostics().size()));
    QVERIFY(issues->windowTitle().contains(QString::number(issues->diagnostics().size())));

    issues->show();
    issues->raise();
    QCoreApplication::processEvents();
    w.selectNode(w.view()->nodes.front().id);
    auto* table = issues->table();
    auto* cell = table->item(editIssue->first, graft::ui::IssuesDock::kMessage);
    table->scrollToItem(cell);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(cell).center());
    QCOMPARE(w.selectedNode(), conv1);
    // A row without a node selects nothing.
    table->clearSelection();
    auto* loadCell = table->item(loadIssue->first, graft::ui::IssuesDock::kMessage);
    table->scrollToItem(loadCell);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualItemRect(loadCell).center());
    QCOMPARE(w.selectedNode(), conv1);

    // For people: the window at 1366x768 with the Issues dock showing its entries.
    if (const QString dir = qEnvironmentVariable("GRAFT_SCREENSHOT_DIR"); !dir.isEmpty()) {
      QTest::qWait(300);
      QVERIFY(w.grab().save(dir + QStringLiteral("/issues-dock.png")));
    }
    auto* clear = issues->findChild<QPushButton*>(QStringLiteral("issuesClear"));
    QVERIFY(clear);
    clear->click();
    QCOMPARE(table->rowCount(), 0);
    QVERIFY(issues->diagnostics().empty());
  }
  // A quantized convolution's packed weight shows how its integers map to reals: qscheme, scale
  // and zero point as PyTorch reports them (tests/python/make_hard_models.py writes the reference).
  void inspectorShowsQuantization() {
    MainWindow w;
    w.show();
    const QString model = graft::test::testdata(QStringLiteral("hard/quantized_mobilenet_v2"));
    QVERIFY(w.openFile(model + QStringLiteral(".pt")));
    QFile f(model + QStringLiteral(".qparams.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject ref = QJsonDocument::fromJson(f.readAll()).object();
    graft::core::model::NodeId conv = graft::core::model::kNoNode;
    for (const auto& n : w.view()->nodes)
      if (n.kind.startsWith(QLatin1String("quantized::conv2d"))) { conv = n.id; break; }
    QVERIFY(conv != graft::core::model::kNoNode);
    w.selectNode(conv);
    const QString text = w.findChild<QTextBrowser*>(QStringLiteral("inspector"))->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("packed_weight.qscheme")) && text.contains(ref.value("qscheme").toString()), qPrintable(text));
    const QRegularExpression scale(QStringLiteral("packed_weight\\.scale\\s+([0-9.eE+-]+)"));
    const auto m = scale.match(text);
    QVERIFY2(m.hasMatch(), qPrintable(text));
    QVERIFY(qAbs(m.captured(1).toDouble() - ref.value("scale_min").toDouble()) <= 1e-5 * ref.value("scale_min").toDouble());
    const QRegularExpression zero(QStringLiteral("packed_weight\\.zero_point\\s+(-?[0-9]+)"));
    const auto z = zero.match(text);
    QVERIFY2(z.hasMatch(), qPrintable(text));
    QCOMPARE(z.captured(1).toInt(), ref.value("zero_point_min").toInt());
  }
  void opensTorchvisionFileAndScreenshots() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    QCOMPARE(w.view()->opCount(), graft::test::reference(QStringLiteral("resnet18")).value("ops").toInt());
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    QVERIFY(w.grab().save(out + QStringLiteral("/mainwindow_resnet18.png")));
  }
};

QTEST_MAIN(TstMainWindow)
#include "tst_mainwindow.moc"
