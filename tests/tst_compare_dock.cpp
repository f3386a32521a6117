// The Compare dock: a run in the worker thread lists outputs and nodes, colours them, inspects a
// node's tensor, and reports a failing run's node.
#include "core/edit/session.h"
#include "core/edit/edit.h"
#include "core/io/load.h"
#include "core/model/document.h"
#include "gui_support.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"
#include "ui/canvas/mark_layers.h"
#include "ui/compare_dock.h"
#include "core/report/verdict_line.h"
#include "ui/edit_actions.h"
#include "ui/history_dock.h"
#include "ui/guarded_application.h"
#include "ui/input_dialog.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"
#include "ui/tensor_inspector.h"

#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>
#include <QtCore/QDir>
#include <QtCore/QTimer>
#include <QtCore/QTemporaryDir>
#include <QtCore/QJsonDocument>
#include <c10/util/Exception.h>
#include <torch/script.h>
#include <QtCore/QFileInfo>
#include <QtCore/QStandardPaths>
#include <QtWidgets/QCheckBox>
#include <QtWidgets/QComboBox>
#include <QtWidgets/QStatusBar>
#include "ui/rewrite/rewrite_dock.h"
#include "ui/main_docks.h"
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QDialogButtonBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QMessageBox>
#include <QtWidgets/QLineEdit>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QTableWidget>

using namespace graft;
using core::model::NodeId;

using graft::test::nodeAt;
using graft::test::runCompare;
using graft::test::waitLayout;


class TstCompareDock : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // remembered inputs stay out of the user's settings
  void comparesSampleWithItself() {
    auto doc = core::io::loadSample(QStringLiteral("cnn")).document;
    QVERIFY(doc);
    ui::CompareDock dock;
    dock.setDocument(doc.get());
    QSignalSpy done(&dock, &ui::CompareDock::finished);
    dock.start();
    QVERIFY(dock.isRunning() || done.count() == 1);
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY2(dock.summary().ok, qPrintable(dock.summary().error));
    QVERIFY(dock.summary().equal);
    QVERIFY(dock.table()->rowCount() > 10);
    QCOMPARE(dock.table()->item(0, dock.table()->columnCount() - 1)->text(), QStringLiteral("pass"));
    QCOMPARE(dock.table()->item(0, 0)->background().color(), QColor(200, 240, 200));
    // Inspect the first node row: stats on both sides.
    QSignalSpy activated(&dock, &ui::CompareDock::nodeActivated);
    Q_EMIT dock.table()->cellDoubleClicked(1, 0);
    QCOMPARE(activated.count(), 1);
    QVERIFY2(dock.inspector()->statsText().contains(QLatin1String("A: float32")), qPrintable(dock.inspector()->statsText()));
    QVERIFY(dock.inspector()->statsText().contains(QLatin1String("mean")));
  }

  // The input field says what the open model takes: each input by name and type, and the range
  // of each symbolic size.
  void inputFieldNamesTheInputs() {
    auto doc = core::io::loadFile(graft::test::testdata("pt2/dynamic_batch.pt2")).document;
    QVERIFY(doc);
    ui::CompareDock dock;
    dock.setDocument(doc.get());
    const QString tip = dock.findChild<QLineEdit*>(QStringLiteral("compareInputs"))->toolTip();
    QVERIFY2(tip.contains(QStringLiteral("x: float32 [s77, 8]")) && tip.contains(QStringLiteral("2 ≤ s77 ≤ 64")), qPrintable(tip));
    dock.setDocument(nullptr);
    QVERIFY(!dock.findChild<QLineEdit*>(QStringLiteral("compareInputs"))->toolTip().contains(QLatin1String("s77")));
  }

  void wrongInputReportsTheNode() {
    auto doc = core::io::loadSample(QStringLiteral("cnn")).document;
    ui::CompareDock dock;
    dock.setDocument(doc.get());
    dock.setInputSpec(QStringLiteral("1x5x32x32"));
    QSignalSpy done(&dock, &ui::CompareDock::finished);
    dock.start();
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY(!dock.summary().ok);
    QVERIFY2(dock.summary().error.contains(QLatin1String("conv")), qPrintable(dock.summary().error));
  }

  // One relu of resnet18 made a gelu: the canvas outlines every compared node (green before the
  // change, red after), the gelu is the first divergence, revealed and selected, and its
  // feature maps show in the inspector.
  void divergenceOnTheCanvas() {
    ui::MainWindow w;
    QVERIFY(graft::test::showModel(w, "resnet18.pt"));
    auto* doc = w.controller()->document();
    const NodeId relu = nodeAt(w.view(), "layer2.0.relu", "aten::relu_");
    QVERIFY(relu);
    QVERIFY(w.parts().edits->applyEdit(core::edit::ReplaceOp{relu, "aten::gelu"}, false));
    QCOMPARE(doc->count(), 2);
    const NodeId gelu = nodeAt(w.view(), "layer2.0.relu", "aten::gelu");
    QVERIFY(gelu);
    auto* compare = w.findChild<ui::CompareDock*>();
    w.findChild<QDockWidget*>("compareDock")->show();
    w.findChild<QDockWidget*>("compareDock")->raise();
    compare->setInputSpec("1x3x64x64");
    QVERIFY(runCompare(compare));
    QVERIFY2(compare->summary().ok, qPrintable(compare->summary().error));
    QVERIFY(!compare->summary().equal);
    QVERIFY(compare->summary().firstDivergence);
    QCOMPARE(compare->summary().firstDivergence->node, gelu);
    auto* scene = w.canvas()->graphScene();
    QVERIFY(waitLayout(w.canvas()));
    QCOMPARE(scene->markOf(gelu)->rank, 5);
    QVERIFY(scene->markOf(gelu)->note.contains("FIRST DIVERGENCE"));
    QCOMPARE(w.selectedNode(), gelu);
    QVERIFY(scene->nodeItem(gelu));  // its groups were opened
    const NodeId stem = nodeAt(w.view(), "conv1", "aten::_convolution");
    const NodeId fc = nodeAt(w.view(), "fc", "aten::linear");
    QVERIFY(stem && fc);
    QCOMPARE(scene->markOf(stem)->rank, 0);  // upstream of the change: within tolerance
    QCOMPARE(scene->markOf(fc)->rank, 3);    // downstream: beyond it
    int green = 0, red = 0;
    for (const auto& m : scene->marks()) (m.rank == 0 ? green : red)++;
    QVERIFY2(green >= 20 && red >= 20, qPrintable(QStringLiteral("%1 green, %2 red").arg(green).arg(red)));
    // Collapsed groups show their worst node: layer2 holds the first divergence.
    int layer2 = -1;
    for (const auto& g : w.view()->groups)
      if (g.path == "layer2") layer2 = g.index;
    QVERIFY(scene->groupMark(layer2));
    QCOMPARE(scene->groupMark(layer2)->rank, 5);
    // The inspector follows the canvas selection: the gelu's 4-D output as channel images.
    w.selectNode(gelu);
    QVERIFY2(compare->inspector()->statsText().contains("on cpu"), qPrintable(compare->inspector()->statsText()));
    QVERIFY(!compare->inspector()->channelGrid().isNull());
    const QString dir = graft::test::testdata("screenshots");
    QDir().mkpath(dir);
    QVERIFY(waitLayout(w.canvas()));
    QVERIFY(w.grab().save(dir + "/compare_divergence_resnet18.png"));
    // Switched off, the overlay goes; the rule-match layer is unaffected.
    compare->findChild<QCheckBox*>("compareOverlay")->setChecked(false);
    QVERIFY(scene->marks().isEmpty());
  }

  // A node a comparison leaves out is grey on the canvas and its tooltip says why: a value never
  // written (aten::empty_like) is not compared, its neighbours are.
  void notComparedNodesAreGreyAndSayWhy() {
    QTemporaryDir dir;
    const QString path = dir.filePath("empty_then_copy.pt");
    {
      torch::jit::Module m("EmptyThenCopy");
      m.define(R"(
def forward(self, x):
    y = torch.empty_like(x)
    y.copy_(x)
    return torch.relu(y) + 1.0
)");
      m.save(path.toStdString());
    }
    ui::MainWindow w;
    QVERIFY(w.openFile(path));
    QVERIFY(waitLayout(w.canvas()));
    auto* compare = w.findChild<ui::CompareDock*>();
    compare->setInputSpec("2x3");
    QVERIFY(runCompare(compare));
    QVERIFY2(compare->summary().ok && compare->summary().equal, qPrintable(compare->summary().error));
    QVERIFY(waitLayout(w.canvas()));
    const NodeId empty = nodeAt(w.view(), "", "aten::empty_like");
    const NodeId relu = nodeAt(w.view(), "", "aten::relu");
    QVERIFY(empty && relu);
    auto* scene = w.canvas()->graphScene();
    const auto* grey = scene->markOf(empty);
    QVERIFY(grey);
    QVERIFY(grey->rank < 0);
    QCOMPARE(grey->colour, ui::canvas::notComparedColour());
    QCOMPARE(grey->note, QStringLiteral("not compared: never written (aten::empty_like)"));
    auto* item = scene->nodeItem(empty);
    QVERIFY(item);
    const QString tip = scene->toolTipAt(item->rect().center());
    QVERIFY2(tip.contains("not compared: never written (aten::empty_like)"), qPrintable(tip));
    QVERIFY(scene->markOf(relu));
    QCOMPARE(scene->markOf(relu)->rank, 0);  // compared, within tolerance: green
    QVERIFY(scene->markOf(relu)->colour != ui::canvas::notComparedColour());
  }

  void failingRunMarksItsNode() {
    ui::MainWindow w;
    QVERIFY(w.openSample("cnn"));
    auto* compare = w.findChild<ui::CompareDock*>();
    compare->setInputSpec("1x5x32x32");
    QVERIFY(runCompare(compare));
    QVERIFY(!compare->summary().ok);
    const NodeId failed = compare->summary().errorNode;
    QVERIFY(failed != core::model::kNoNode);
    QCOMPARE(w.view()->node(failed)->modulePath, QStringLiteral("stem.conv"));  // the first convolution
    QCOMPARE(w.canvas()->graphScene()->markOf(failed)->rank, 6);
    QCOMPARE(w.selectedNode(), failed);
  }

  // The worker reads snapshots (revisions and inputs resolved on the GUI thread), so opening
  // another model or closing the window while a comparison runs is safe; the stale result is
  // dropped, and the next comparison runs on the new model.
  void openAndCloseDuringACompare() {
    ui::MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata("resnet18.pt")));
    auto* compare = w.findChild<ui::CompareDock*>();
    compare->setInputSpec("1x3x224x224");
    QSignalSpy done(compare, &ui::CompareDock::finished);
    compare->start();
    QVERIFY(compare->isRunning());
    QVERIFY(w.openSample("mlp"));  // the resnet18 document is freed under the running worker
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY(!compare->summary().ok);
    QVERIFY(compare->summary().cancelled);
    QVERIFY(runCompare(compare));
    QVERIFY2(compare->summary().ok && compare->summary().equal, qPrintable(compare->summary().error));
    // Closing: a window (and its document) destroyed mid-run.
    auto* other = new ui::MainWindow;
    QVERIFY(other->openFile(graft::test::testdata("resnet18.pt")));
    auto* running = other->findChild<ui::CompareDock*>();
    running->setInputSpec("1x3x224x224");
    running->start();
    QVERIFY(running->isRunning());
    delete other;
    // An input-less model asks for its inputs in a dialog instead of failing.
    const QString resnet = QFileInfo(graft::test::testdata("resnet18.pt")).absoluteFilePath();
    ui::InputDialog::remember(resnet, {});
    QVERIFY(w.openFile(resnet));
    compare->setInputSpec({});
    compare->start();
    QVERIFY(!compare->isRunning());
    auto* dialog = compare->findChild<ui::InputDialog*>();
    QVERIFY(dialog);
    QCOMPARE(dialog->field(0)->text(), QStringLiteral("1x3x224x224:float32"));  // prefilled with an example
    auto* ok = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    dialog->field(0)->setText("1x3xbanana");
    QVERIFY(!ok->isEnabled());  // validated as typed
    QVERIFY(!dialog->findChild<QLabel*>("inputProblem")->text().isEmpty());
    dialog->field(0)->setText("1x3x64x64");
    QVERIFY(ok->isEnabled());
    ok->click();  // accepted: the comparison starts with the answer
    QVERIFY(done.wait(120000));
    QVERIFY2(compare->summary().ok && compare->summary().equal, qPrintable(compare->summary().error));
    QCOMPARE(w.findChild<QLineEdit*>("compareInputs")->text(), QStringLiteral("1x3x64x64"));
    // Remembered per file: opening it again fills the box.
    QVERIFY(w.openSample("mlp"));
    QVERIFY(w.findChild<QLineEdit*>("compareInputs")->text().isEmpty());
    QVERIFY(w.openFile(resnet));
    QCOMPARE(w.findChild<QLineEdit*>("compareInputs")->text(), QStringLiteral("1x3x64x64"));
    ui::InputDialog::remember(resnet, {});
  }

  // A model whose per-node compare used to end the process (quantized tensors): in the dock it
  // compares equal with itself, and the inspector summarises a quantized tensor.
  void quantizedModelInTheDock() {
    ui::MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata("hard/quantized_mobilenet_v2.pt")));
    auto* compare = w.findChild<ui::CompareDock*>();
    compare->setInputSpec(graft::test::testdata("hard/quantized_mobilenet_v2.x.pt"));
    QVERIFY(runCompare(compare));
    QVERIFY2(compare->summary().ok && compare->summary().equal, qPrintable(compare->summary().error));
    int quantizedRow = -1;
    for (int row = 0; row < compare->table()->rowCount() && quantizedRow < 0; ++row)
      if (compare->table()->item(row, 1)->text() == QLatin1String("quantized::conv2d")) quantizedRow = row;
    QVERIFY(quantizedRow >= 0);
    Q_EMIT compare->table()->cellDoubleClicked(quantizedRow, 0);
    QVERIFY2(compare->inspector()->statsText().contains(QLatin1String("mean")), qPrintable(compare->inspector()->statsText()));
  }

  // B at float16: the dock names the node that introduces the error, marks it on the canvas, lists
  // each node's local error, and colours the canvas by the chosen error metric.
  void precisionComparisonNamesTheCulprit() {
    ui::MainWindow w;
    const QString shots = qEnvironmentVariable("GRAFT_SCREENSHOT_DIR");  // a picture to look at
    if (!shots.isEmpty()) {
      w.resize(1366, 768);
      w.show();
    }
    QVERIFY(w.openFile(graft::test::testdata("numerics/culprit.pt2")));
    auto* compare = w.findChild<ui::CompareDock*>();
    compare->setInputSpec(graft::test::testdata("numerics/culprit.x.pt"));
    compare->setPrecisionB(QStringLiteral("float16"));
    QCOMPARE(compare->rtol(), 1e-3);  // the tolerance follows the lower precision
    compare->setErrorMetric(ui::CompareDock::ErrorMetric::Local);
    QVERIFY(runCompare(compare));
    const auto& s = compare->summary();
    QVERIFY2(s.ok && !s.equal, qPrintable(s.error));
    QVERIFY(s.localErrors);
    QVERIFY(s.culprit);
    QCOMPARE(s.culprit->op, QStringLiteral("aten::exp"));
    // By the rounding model the overflowing exp is also where the values first part.
    QVERIFY(s.firstDivergence && s.firstDivergence->node == s.culprit->node);
    // Every node row shows its local error; the culprit's is an overflow.
    int localColumn = -1;
    for (int c = 0; c < compare->table()->columnCount(); ++c)
      if (compare->table()->horizontalHeaderItem(c)->text() == QLatin1String("local max abs")) localColumn = c;
    QVERIFY(localColumn >= 0);
    bool sawOverflow = false;
    for (int row = 1; row < compare->table()->rowCount(); ++row) {
      QVERIFY(!compare->table()->item(row, localColumn)->text().isEmpty());
      sawOverflow = sawOverflow || compare->table()->item(row, localColumn)->text() == QLatin1String("overflow");
    }
    QVERIFY(sawOverflow);
    auto* canvas = w.findChild<ui::canvas::GraphCanvas*>();
    const auto* mark = canvas->graphScene()->markOf(s.culprit->node);
    QVERIFY(mark);
    QVERIFY2(mark->note.startsWith(QLatin1String("CULPRIT")), qPrintable(mark->note));
    // The heat: the culprit is the hottest node; switching the metric off clears it.
    QVERIFY(canvas->heatVisible());
    const auto heat = compare->errorHeat();
    double hottest = 0;
    for (double v : heat) hottest = std::max(hottest, v);
    QCOMPARE(heat.value(s.culprit->node), hottest);
    if (!shots.isEmpty()) {
      if (auto* dock = w.findChild<QDockWidget*>(QStringLiteral("compareDock"))) {
        dock->show();
        dock->raise();
      }
      canvas->expandAll();
      waitLayout(canvas);
      canvas->revealNode(s.culprit->node);
      QTest::qWait(500);
      w.grab().save(shots + QStringLiteral("/precision_compare.png"));
    }
    compare->setErrorMetric(ui::CompareDock::ErrorMetric::Sqnr);
    QVERIFY(canvas->heatVisible());
    compare->setErrorMetric(ui::CompareDock::ErrorMetric::Off);
    QVERIFY(!canvas->heatVisible());
  }

  // From a failing float16 comparison: Reduce outlines the smallest failing subgraph and saves it
  // as a .pt2; Keep in float32 adds a revision with casts that passes, journaled so that replay
  // rebuilds it.
  void reduceAndKeepFloat32FromTheDock() {
    ui::MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata("numerics/culprit.pt2")));
    auto* compare = w.findChild<ui::CompareDock*>();
    compare->setInputSpec(graft::test::testdata("numerics/culprit.x.pt"));
    compare->setPrecisionB(QStringLiteral("float16"));
    auto* reduceButton = w.findChild<QPushButton*>(QStringLiteral("compareReduce"));
    auto* keepButton = w.findChild<QPushButton*>(QStringLiteral("compareKeepFloat32"));
    QVERIFY(!reduceButton->isEnabled());  // nothing compared yet
    QVERIFY(runCompare(compare));
    QVERIFY(compare->summary().culprit);
    QVERIFY(reduceButton->isEnabled() && keepButton->isEnabled());

    QSignalSpy reduced(compare, &ui::CompareDock::reduceFinished);
    reduceButton->click();
    QVERIFY(reduced.wait(120000));
    const auto& r = compare->reduceSummary();
    QVERIFY2(r.ok, qPrintable(r.error));
    QVERIFY(r.nodes.contains(compare->summary().culprit->node));
    const auto* mark = w.canvas()->graphScene()->markOf(r.failing);
    QVERIFY(mark);
    QTemporaryDir dir;
    const QString repro = dir.filePath(QStringLiteral("repro.pt2"));
    QCOMPARE(compare->saveReducedAs(repro), QString());
    auto reloaded = core::io::loadFile(repro);
    QVERIFY2(reloaded.ok(), qPrintable(reloaded.error.message()));

    // A looser tolerance (float16 noise passes), then the nodes to keep in float32.
    compare->setElementwise(true);
    for (auto* edit : compare->findChildren<QLineEdit*>())
      if (edit->text() == QLatin1String("1e-05") || edit->text() == QLatin1String("0.001")) edit->setText(QStringLiteral("0.01"));
    QVERIFY(runCompare(compare));
    QVERIFY(!compare->summary().equal);
    QSignalSpy found(compare, &ui::CompareDock::float32Found);
    const int before = w.controller()->document()->count();
    keepButton->click();
    QVERIFY(found.wait(120000));
    QVERIFY2(compare->float32Summary().ok, qPrintable(compare->float32Summary().error));
    QCOMPARE(w.controller()->document()->count(), before + 1);
    QVERIFY(w.controller()->document()->current()->name().contains(QLatin1String("float32")));
    // The new revision at float16 against the original: equal within the tolerance.
    QVERIFY(runCompare(compare));
    QVERIFY2(compare->summary().ok && compare->summary().equal, qPrintable(compare->summary().error));
    // The journal records it, and replay onto a fresh load rebuilds the same graph.
    const QJsonObject journal = w.controller()->journal();
    QVERIFY(QJsonDocument(journal).toJson().contains("keep_float32"));
    auto fresh = core::io::loadFile(graft::test::testdata("numerics/culprit.pt2")).document;
    core::edit::Session replaying(*fresh);
    const auto replayed = replaying.replay(journal);
    QVERIFY2(replayed.ok, qPrintable(replayed.error));
    QCOMPARE(fresh->current()->irText(), w.controller()->document()->current()->irText());
  }

  // Run > Quantization Error: the quantized model coloured by each module's SQNR against its
  // float twin, the worst module the hottest.
  void quantizationErrorOnTheCanvas() {
    ui::MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata("quant/fx_cnn.quantized.pt")));
    w.findChild<ui::CompareDock*>()->setInputSpec(graft::test::testdata("quant/fx_cnn.x.pt"));
    QSignalSpy shown(&w, &ui::MainWindow::quantErrorShown);
    QVERIFY(w.showQuantizationError(graft::test::testdata("quant/fx_cnn.float.pt")));
    QVERIFY(shown.wait(120000));
    QVERIFY(w.canvas()->heatVisible());
    auto* scene = w.canvas()->graphScene();
    // Every quantized op node inside a compared module has a colour; conv2 (the worst) the hottest.
    const NodeId conv2 = nodeAt(w.view(), QStringLiteral("conv2"), QStringLiteral("quantized::conv2d"));
    const NodeId conv1 = nodeAt(w.view(), QStringLiteral("conv1"), QStringLiteral("quantized::conv2d_relu"));
    QVERIFY(conv2 != core::model::kNoNode);
    QColor hot, other;
    QVERIFY(scene->nodeHeat(conv2, &hot));
    if (conv1 != core::model::kNoNode) {
      QVERIFY(scene->nodeHeat(conv1, &other));
      QVERIFY(hot != other);
    }
    // A float model that does not open: a message, nothing started.
    QVERIFY(!w.showQuantizationError(QStringLiteral("/nonexistent/float.pt")));
  }

  // A model that records no inputs: the History ledger says it waits for them (its rows are not
  // left blank), and Run > Quantization Error asks for them in Compare's dialog, then runs with
  // the answer; given, the ledger checks.
  void inputsAskedForByHistoryAndQuantizationError() {
    ui::MainWindow w;
    const QString quantized = QFileInfo(graft::test::testdata("quant/fx_cnn.quantized.pt")).absoluteFilePath();
    ui::InputDialog::remember(quantized, {});
    QVERIFY(w.openFile(quantized));
    auto* history = w.parts().docks->history;
    QVERIFY(history->waitingForInputs());
    QCOMPARE(history->list()->count(), 1);
    QVERIFY2(history->list()->item(0)->text().contains(QLatin1String("waiting for inputs")), qPrintable(history->list()->item(0)->text()));
    auto* compare = w.compareDock();
    QVERIFY(!compare->findChild<ui::InputDialog*>());
    QSignalSpy shown(&w, &ui::MainWindow::quantErrorShown);
    QVERIFY(w.showQuantizationError(graft::test::testdata("quant/fx_cnn.float.pt")));
    auto* dialog = compare->findChild<ui::InputDialog*>();
    QVERIFY(dialog);  // asked, as Compare asks
    QCOMPARE(shown.count(), 0);
    dialog->field(0)->setText(graft::test::testdata("quant/fx_cnn.x.pt"));
    auto* ok = dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    ok->click();
    QVERIFY(shown.count() == 1 || shown.wait(120000));
    QVERIFY(w.canvas()->heatVisible());  // ran with the answer
    QCOMPARE(compare->inputSpec(), graft::test::testdata("quant/fx_cnn.x.pt"));
    history->recheck();
    QVERIFY(!history->waitingForInputs());
    QTRY_VERIFY_WITH_TIMEOUT(history->ledgerEntry(0) != nullptr, 120000);
    QVERIFY(!history->list()->item(0)->text().contains(QLatin1String("waiting for inputs")));
    ui::InputDialog::remember(quantized, {});
  }

  // A result stays only while it applies: after a new revision the Compare dock greys its verdict
  // and table and says which revisions they were computed for; the status bar ends with the job;
  // History times the original again once a revision is timed, so both are measured alike.
  void staleResultAfterANewRevision() {
    ui::MainWindow w;
    QVERIFY(w.openSample("cnn"));
    auto* doc = w.controller()->document();
    auto* history = w.parts().docks->history;
    QTRY_VERIFY_WITH_TIMEOUT(history->ledgerEntry(0) != nullptr, 120000);  // timed alone at open
    auto* compare = w.compareDock();
    QVERIFY(runCompare(compare));
    QVERIFY2(compare->summary().ok, qPrintable(compare->summary().error));
    auto* stale = compare->findChild<QLabel*>("compareStale");
    QVERIFY(stale);
    QVERIFY(compare->staleText().isEmpty());
    QVERIFY(!stale->isVisibleTo(compare));
    QVERIFY(compare->table()->isEnabled());
    const QString verdict = compare->verdictText();

    QVector<std::pair<bool, bool>> ledgers;  // (original timed, revision 1 timed) after each update
    connect(history, &ui::HistoryDock::ledgerUpdated, this,
            [&] { ledgers.push_back({history->ledgerEntry(0) != nullptr, history->ledgerEntry(1) != nullptr}); });
    const QString said = w.parts().docks->rewrites->applyRules({"fold-conv-bn"});
    QCOMPARE(doc->count(), 2);
    QVERIFY2(w.statusBar()->currentMessage() != QLatin1String("Applying rules…"), qPrintable(said));
    // The verdict is kept for reading, greyed, with the line that says it is out of date.
    QCOMPARE(compare->verdictText(), verdict);
    QVERIFY2(compare->staleText().startsWith(QString::fromUtf8("Out of date: computed for 0 → 0; now 0 → 1")),
             qPrintable(compare->staleText()));
    QVERIFY(stale->isVisibleTo(compare));
    QCOMPARE(stale->text(), compare->staleText());
    QVERIFY(!compare->table()->isEnabled());
    QVERIFY(compare->verdictLabel()->styleSheet().contains("gray"));
    // Another input is stale too; back to what it ran for, current again.
    auto* revB = compare->findChild<QComboBox*>("compareRevB");
    revB->setCurrentIndex(0);
    QVERIFY(compare->staleText().isEmpty());
    compare->setInputSpec("2x3x32x32");
    QVERIFY2(compare->staleText().contains("with inputs"), qPrintable(compare->staleText()));
    compare->setInputSpec(QString());
    QVERIFY(compare->staleText().isEmpty());
    QVERIFY(compare->table()->isEnabled());
    // Compare again: current.
    revB->setCurrentIndex(1);
    QVERIFY(!compare->staleText().isEmpty());
    QVERIFY(runCompare(compare));
    QVERIFY(compare->staleText().isEmpty());
    QVERIFY(!stale->isVisibleTo(compare));

    // History: revision 1 timed while the cold time of the original is dropped, then the original
    // timed again after it.
    QTRY_VERIFY_WITH_TIMEOUT(history->ledgerEntry(1) && history->ledgerEntry(0), 120000);
    QVERIFY(!ledgers.isEmpty());
    const auto firstWithRevision =
        std::find_if(ledgers.begin(), ledgers.end(), [](const auto& l) { return l.second; });
    QVERIFY(firstWithRevision != ledgers.end());
    QVERIFY(!firstWithRevision->first);
  }

  // The verdict line above the table names the verdict in the words the report uses.
  void verdictLineAboveTheTable() {
    auto doc = core::io::loadSample(QStringLiteral("cnn")).document;
    QVERIFY(doc);
    ui::CompareDock dock;
    dock.setDocument(doc.get());
    QVERIFY(runCompare(&dock));
    QVERIFY(dock.summary().ok);
    const auto verdict = core::report::verdictLine(dock.summary());
    QVERIFY(verdict.good());  // a revision against itself
    QVERIFY2(dock.verdictText().startsWith(verdict.text()), qPrintable(dock.verdictText()));
    if (!verdict.reason.isEmpty()) QVERIFY(dock.verdictText().contains(verdict.reason));
    dock.setDocument(nullptr);
    QVERIFY(!dock.verdictText().startsWith(verdict.text()));
  }

  // The GUI's last boundary: an exception thrown by an event handler is reported, and the
  // application goes on.
  void exceptionInAnEventHandlerIsCaught() {
    auto* app = qobject_cast<ui::GuardedApplication*>(qApp);
    QVERIFY(app);
    QSignalSpy caught(app, &ui::GuardedApplication::exceptionCaught);
    auto* closer = new QTimer(this);
    connect(closer, &QTimer::timeout, closer, [closer] {
      if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        box->close();
        closer->deleteLater();
      }
    });
    closer->start(50);
    QMetaObject::invokeMethod(this, [] { TORCH_CHECK(false, "a kernel refused the input"); }, Qt::QueuedConnection);
    QVERIFY(caught.wait(10000));
    QVERIFY2(caught.front().front().toString().contains(QLatin1String("a kernel refused the input")),
             qPrintable(caught.front().front().toString()));
    // Still alive and working.
    QTRY_VERIFY_WITH_TIMEOUT(QApplication::activeModalWidget() == nullptr, 10000);
  }

  void mainWindowHasTheDock() {
    ui::MainWindow w;
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("compareDock"));
    QVERIFY(dock);
    QVERIFY(w.openSample(QStringLiteral("mlp")));
    auto* compare = w.findChild<ui::CompareDock*>();
    QVERIFY(compare);
    QSignalSpy done(compare, &ui::CompareDock::finished);
    compare->start();
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY2(compare->summary().ok, qPrintable(compare->summary().error));
  }
};

int main(int argc, char** argv) {
  ui::GuardedApplication app(argc, argv);  // as the graft executable runs
  TstCompareDock test;
  return QTest::qExec(&test, argc, argv);
}
#include "tst_compare_dock.moc"
