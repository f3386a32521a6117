// The Profile dock: original vs current on the same inputs, in a worker thread; timelines,
// charts, speedup, Chrome-trace export, click-to-select; and a screenshot to look at.
#include "core/edit/session.h"
#include "core/model/document.h"
#include "test_support.h"
#include "ui/render/diagram_painter.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_scene.h"
#include "ui/canvas/heat_legend.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"
#include "ui/profile/profile_charts.h"
#include "ui/edit_actions.h"
#include "ui/profile/profile_dock.h"
#include "ui/profile/timeline_view.h"

#include <torch/script.h>

#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>
#include <QtWidgets/QCheckBox>
#include <QtWidgets/QComboBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QSpinBox>
#include <QtWidgets/QTabWidget>
#include <QtWidgets/QLineEdit>

using namespace graft;

namespace {

// A revision of the cnn sample with every relu replaced by nothing (a cheaper, different graph).
// Every relu bypassed, one Delete Node edit each, through the controller as a user's would be.
void dropRelus(ui::MainWindow& w) {
  for (;;) {
    const auto rev = w.controller()->document()->current();
    core::model::NodeId relu = core::model::kNoNode;
    for (auto* n : rev->graph()->nodes())
      if (n->kind() == c10::aten::relu) {
        relu = rev->idOf(n);
        break;
      }
    if (relu == core::model::kNoNode) return;
    QVERIFY(w.parts().edits->applyEdit(core::edit::DeleteNode{relu}, false));
  }
}


// A profile of `rev` as one on CUDA reads (the same records core/profile/kernel_attribution
// fills): two runs, an op event per node, and GPU kernels on stream 7, node i launching
// (i % 3) kernels of (i + 1) * 3 µs each (run 1's twice as long), plus one kernel launched outside
// every node. With `kernels` false it is the same profile as the CPU records it: no kernels.
core::profile::Profile syntheticProfile(const core::model::Revision& rev, bool kernels) {
  core::profile::Profile p;
  p.device = kernels ? QStringLiteral("cuda") : QStringLiteral("cpu");
  p.runMs = {1.0, 1.2};
  p.forwardMs = {0.9, 1.0};
  p.run = core::profile::Stats::of(p.runMs);
  p.forward = core::profile::Stats::of(p.forwardMs);
  const auto ids = rev.opNodeIds();
  QVector<double> kernelPerRun(2, 0.0);
  for (int i = 0; i < int(ids.size()); ++i) {
    core::profile::NodeTiming t{ids[size_t(i)], rev.kindOf(ids[size_t(i)]), rev.modulePathOf(ids[size_t(i)]), 1,
                                core::profile::Stats::of({0.01 * (i + 1), 0.01 * (i + 1)})};
    QVector<double> nodeKernelMs(2, 0.0);
    for (int run = 0; run < 2; ++run) {
      const qint64 start = run * 1000000 + i * 20000;
      p.events.push_back({t.op, run, start, 10000, 0, 0, QString(), t.node});
      if (!kernels) continue;
      for (int k = 0; k < i % 3; ++k) {
        core::profile::KernelEvent e;
        e.name = QStringLiteral("kernel_%1_%2").arg(i).arg(k);
        e.run = run;
        e.startNs = start + 12000 + k * 4000;
        e.durationNs = (i + 1) * 3000 * (run + 1);
        e.launchNs = start + 2000;
        e.stream = 7;
        e.node = t.node;
        p.kernels.push_back(e);
        nodeKernelMs[run] += e.durationNs / 1e6;
      }
    }
    if (kernels) {
      t.kernels = i % 3;
      t.kernelMs = core::profile::Stats::of(nodeKernelMs);
      kernelPerRun[0] += nodeKernelMs[0];
      kernelPerRun[1] += nodeKernelMs[1];
    }
    p.nodes.push_back(t);
  }
  // Time per op kind, slowest first, as the profiler sums it.
  QHash<QString, QVector<double>> byOp;
  QHash<QString, int> nodesOf;
  for (const auto& n : p.nodes) {
    auto& runs = byOp[n.op];
    runs.resize(2);
    runs[0] += n.selfMs.median;
    runs[1] += n.selfMs.median;
    ++nodesOf[n.op];
  }
  for (auto it = byOp.begin(); it != byOp.end(); ++it) p.byOp.push_back({it.key(), nodesOf[it.key()], core::profile::Stats::of(it.value())});
  std::sort(p.byOp.begin(), p.byOp.end(), [](const auto& a, const auto& b) { return a.totalMs.median > b.totalMs.median; });
  if (kernels) {
    core::profile::KernelEvent stray;
    stray.name = QStringLiteral("Memset (Device)");
    stray.startNs = 5000;
    stray.durationNs = 1000;
    stray.stream = 7;
    p.kernels.push_back(stray);
    p.unattributedKernels = 1;
    p.kernelsRecorded = true;
    p.kernel = core::profile::Stats::of(kernelPerRun);
  }
  return p;
}

}  // namespace

class TstProfileDock : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void profilesOriginalAndCurrent() {
    ui::MainWindow w;
    w.resize(1500, 1000);
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    dropRelus(w);
    auto* dock = w.findChild<ui::ProfileDock*>();
    QVERIFY(dock);
    dock->show();
    // Blank: the model's own inputs, by the path the Compare dock and graft-cli use.
    QVERIFY(w.findChild<QLineEdit*>(QStringLiteral("profileInput"))->text().isEmpty());
    QSignalSpy done(dock, &ui::ProfileDock::finished);
    dock->start();
    QVERIFY(dock->isRunning() || done.count() == 1);
    QVERIFY(done.wait(60000) || done.count() == 1);
    QVERIFY2(done.front().front().toBool(), qPrintable(done.front().at(1).toString()));
    QVERIFY(dock->before() && dock->after());
    // The original has 6 relu nodes' worth of events per run; the current revision none.
    auto countRelu = [](const core::profile::Profile& p) {
      int n = 0;
      for (const auto& e : p.events) n += e.depth == 0 && e.name == "aten::relu";
      return n;
    };
    QCOMPARE(countRelu(*dock->before()), 6 * dock->before()->runMs.size());
    QCOMPARE(countRelu(*dock->after()), 0);
    // A speedup or slowdown is claimed only where the paired runs show one.
    QVERIFY2(dock->speedupText().contains(QRegularExpression(QStringLiteral(
                 "(is [0-9.]+× (faster|slower) than original|no measurable difference) \\(ratio [0-9.]+×, interval [0-9.]+–[0-9.]+× over \\d+ paired runs\\)"))),
             qPrintable(dock->speedupText()));
    // Both profiles are charted: one bar set each, relu present for the original only.
    auto* charts = w.findChild<ui::ProfileCharts*>();
    auto series = charts->byOpChart()->chart()->series();
    QCOMPARE(series.size(), 1);
    auto* bars = qobject_cast<QAbstractBarSeries*>(series.front());
    QCOMPARE(bars->count(), 2);
    QCOMPARE(charts->latencyChart()->chart()->series().size(), 2);
    // Clicking a node's bar in the timeline selects that node.
    auto* timeline = w.findChild<ui::TimelineView*>();
    QPoint hit;
    for (int x = 100; x < timeline->width() && hit.isNull(); x += 2)
      if (auto* e = timeline->eventAt(QPoint(x, 18 + 9)); e && e->node) hit = QPoint(x, 27);
    QVERIFY(!hit.isNull());
    const auto id = timeline->eventAt(hit)->node;
    QTest::mouseClick(timeline, Qt::LeftButton, {}, hit);
    QCOMPARE(w.selectedNode(), id);
    // The trace export parses and holds one node event per op node per run.
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("trace.json"));
    QVERIFY(dock->exportTrace(trace));
    QFile f(trace);
    QVERIFY(f.open(QIODevice::ReadOnly));
    int nodeEvents = 0;
    for (const auto& v : QJsonDocument::fromJson(f.readAll()).object().value("traceEvents").toArray())
      nodeEvents += v.toObject().value("cat").toString() == "node";
    QCOMPARE(nodeEvents, int(dock->after()->nodes.size() * dock->after()->runMs.size()));
    // The heatmap switched on with the fresh profile: the slowest node is the deepest red.
    auto* canvas = w.findChild<ui::canvas::GraphCanvas*>();
    QVERIFY(canvas->heatVisible());
    auto* legend = w.findChild<QWidget*>(QStringLiteral("heatLegend"));
    QVERIFY(legend && legend->isVisible());
    const auto costs = dock->nodeCosts();
    QCOMPARE(costs.size(), int(dock->after()->nodes.size()));
    const auto slowest = std::max_element(costs.begin(), costs.end()).key();
    QColor hot, other;
    QVERIFY(canvas->graphScene()->nodeHeat(slowest, &hot));
    QCOMPARE(hot, ui::canvas::heatColour(1.0));
    w.findChild<QAction*>(QStringLiteral("heatmapAction"))->setChecked(false);
    QVERIFY(!canvas->heatVisible());
    QVERIFY(!canvas->graphScene()->nodeHeat(slowest, &other));
    w.findChild<QAction*>(QStringLiteral("heatmapAction"))->setChecked(true);
    canvas->expandAll();
    QTRY_VERIFY(!canvas->layoutPending());
    canvas->revealNode(slowest);
    const QString out = test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    QTest::qWait(300);  // let the charts lay out before the grab
    QVERIFY(w.grab().save(out + QStringLiteral("/profile_dock_cnn.png")));
    // The change heatmap: every node of the current revision coloured by its time against what
    // it came from (the paired node table's rows), on a green–white–red scale.
    const auto deltas = dock->nodeDeltas();
    QCOMPARE(deltas.size(), int(w.controller()->document()->current()->opNodeIds().size()));
    w.findChild<QAction*>(QStringLiteral("deltaHeatmapAction"))->trigger();
    QVERIFY(canvas->graphScene()->heatIsDelta());
    const auto largest = std::max_element(deltas.begin(), deltas.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });
    QColor changed;
    QVERIFY(canvas->graphScene()->nodeHeat(largest.key(), &changed));
    QCOMPARE(changed, ui::canvas::deltaColour(*largest > 0 ? 1.0 : -1.0));
    QVERIFY(dock->nodeTable()->rowCount() > 0);
  }
  // A profile with GPU kernels: the node table gets kernel time and count columns, the timeline a
  // kernel lane under the op lane (a bar per kernel of the shown run, named in its tooltip, a click
  // selecting its node), and the cost heatmap colours by kernel time unless host time is chosen.
  // The headline says what the paired runs measured: the same times in another order are "no
  // measurable difference" with the interval (never "0.49×" read as a slowdown); halved times in
  // every run are a speedup, doubled ones a slowdown.
  void headlineClaimsOnlyWhatWasMeasured() {
    ui::MainWindow w;
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    dropRelus(w);
    auto* dock = w.findChild<ui::ProfileDock*>();
    const auto& rev = *w.controller()->document()->current();
    auto before = syntheticProfile(rev, false);
    auto after = before;
    before.runMs = {1.0, 0.4, 1.9, 0.8, 1.2, 0.5, 1.6, 0.9, 1.1, 0.7, 1.3, 0.6, 1.8, 1.0, 0.45, 1.5, 0.85, 1.25, 0.55, 1.7};
    after.runMs = before.runMs;
    std::reverse(after.runMs.begin(), after.runMs.end());
    before.run = core::profile::Stats::of(before.runMs);
    after.run = core::profile::Stats::of(after.runMs);
    dock->showProfiles(before, after);
    QVERIFY2(dock->speedupText().startsWith(QStringLiteral("original → rev ")) &&
                 dock->speedupText().contains(QStringLiteral(": no measurable difference (ratio ")) &&
                 dock->speedupText().contains(QStringLiteral("over 20 paired runs)")),
             qPrintable(dock->speedupText()));
    QVERIFY(!dock->speedupText().contains(QStringLiteral("faster")) && !dock->speedupText().contains(QStringLiteral("slower")));
    QVERIFY(dock->summaryText().contains(QStringLiteral("no measurable difference")));
    const auto s = core::profile::speedup(before, after);
    QVERIFY(s.low < 1 && s.high > 1 && s.pairs == 20);
    // Every run twice as fast, with noise: a speedup, by the median ratio.
    for (int i = 0; i < after.runMs.size(); ++i) after.runMs[i] = before.runMs[i] / (2.0 + 0.01 * (i % 5));
    after.run = core::profile::Stats::of(after.runMs);
    dock->showProfiles(before, after);
    QVERIFY2(dock->speedupText().contains(QRegularExpression(QStringLiteral("^rev \\d+ is 2\\.0\\d× faster than original \\(ratio 2\\.0\\d×"))),
             qPrintable(dock->speedupText()));
    for (int i = 0; i < after.runMs.size(); ++i) after.runMs[i] = before.runMs[i] * 2.0;
    after.run = core::profile::Stats::of(after.runMs);
    dock->showProfiles(before, after);
    QVERIFY2(dock->speedupText().contains(QRegularExpression(QStringLiteral("^rev \\d+ is 2\\.00× slower than original \\(ratio 0\\.50×"))),
             qPrintable(dock->speedupText()));
  }

  void cudaProfileShowsKernels() {
    ui::MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* dock = w.profileDock();
    dock->show();
    dock->raise();
    const auto& rev = *w.controller()->document()->current();
    const auto profile = syntheticProfile(rev, true);
    QSignalSpy costs(dock, &ui::ProfileDock::costsChanged);
    dock->showProfiles(profile, profile);
    QCOMPARE(costs.count(), 1);
    QVERIFY(dock->summaryText().contains(QStringLiteral("GPU kernels: ")));
    QVERIFY(dock->summaryText().contains(QStringLiteral("1 launched outside every node")));

    auto* table = dock->nodeTable();
    QCOMPARE(table->columnCount(), 7);
    QCOMPARE(table->horizontalHeaderItem(5)->text(), QStringLiteral("Kernel ms after"));
    QCOMPARE(table->horizontalHeaderItem(6)->text(), QStringLiteral("Kernels"));
    QCOMPARE(table->rowCount(), int(profile.nodes.size()));
    for (int row = 0; row < table->rowCount(); ++row) {
      const auto id = table->item(row, 0)->data(Qt::UserRole).toULongLong();
      const auto t = std::find_if(profile.nodes.begin(), profile.nodes.end(), [&](const auto& n) { return n.node == id; });
      QVERIFY(t != profile.nodes.end());
      QCOMPARE(table->item(row, 5)->text(), QString::number(t->kernelMs.median, 'f', 3));
      QCOMPARE(table->item(row, 4)->text(), QString::number(t->kernelMs.median, 'f', 3));
      QCOMPARE(table->item(row, 6)->text(), QString::number(t->kernels));
    }

    // The op-kind chart: host time and, beside it, the kernels' device time per kind.
    auto* bars = qobject_cast<QAbstractBarSeries*>(dock->charts()->byOpChart()->chart()->series().front());
    QCOMPARE(bars->count(), 2);
    QCOMPARE(bars->barSets()[1]->label(), QStringLiteral("original GPU kernels"));
    const auto kernelByOp = ui::ProfileCharts::kernelMsByOp(profile);
    const auto categories = qobject_cast<QBarCategoryAxis*>(dock->charts()->byOpChart()->chart()->axes(Qt::Vertical).front())->categories();
    QCOMPARE(categories.size(), bars->barSets()[1]->count());
    for (int i = 0; i < categories.size(); ++i)
      QCOMPARE(bars->barSets()[1]->at(i), kernelByOp.value(QStringLiteral("aten::") + categories[i]));

    // The kernel lane: one bar per kernel of run 0 (the stray one, of no run, is not drawn).
    auto* timeline = w.findChild<ui::TimelineView*>();
    const int run0 = int(std::count_if(profile.kernels.begin(), profile.kernels.end(), [](const auto& k) { return k.run == 0; }));
    QVERIFY(run0 > 0);
    QCOMPARE(timeline->kernelBarCount(), run0);
    const QPoint onKernel = timeline->kernelBarRect(run0 - 1).center().toPoint();
    const auto* kernel = timeline->kernelAt(onKernel);
    QVERIFY(kernel);
    QVERIFY(kernel->name.startsWith(QStringLiteral("kernel_")));
    const QString tip = timeline->toolTipAt(onKernel);
    QVERIFY2(tip.contains(kernel->name) && tip.contains(QStringLiteral("stream 7")) &&
                 tip.contains(QStringLiteral("node #%1").arg(kernel->node)) && tip.contains(rev.kindOf(kernel->node)),
             qPrintable(tip));
    // Below the op lane, not over it.
    QVERIFY(timeline->kernelBarRect(0).top() > 18 + 18);
    QTest::mouseClick(timeline, Qt::LeftButton, {}, onKernel);
    QCOMPARE(w.selectedNode(), kernel->node);

    // The heatmap: kernel time by default, the host time when chosen.
    QVERIFY(dock->costsAreKernelTimes());
    auto* metric = dock->findChild<QComboBox*>(QStringLiteral("profileCostMetric"));
    QVERIFY(metric && metric->isVisible());
    auto byKernel = dock->nodeCosts();
    QCOMPARE(byKernel.size(), int(profile.nodes.size()));
    for (const auto& n : profile.nodes) QCOMPARE(byKernel.value(n.node), n.kernelMs.median);
    auto* canvas = w.findChild<ui::canvas::GraphCanvas*>();
    QVERIFY(canvas->heatVisible());
    const auto hottest = std::max_element(byKernel.begin(), byKernel.end()).key();
    QColor hot;
    QVERIFY(canvas->graphScene()->nodeHeat(hottest, &hot));
    QCOMPARE(hot, ui::canvas::heatColour(1.0));
    QCOMPARE(static_cast<ui::canvas::HeatLegend*>(canvas->heatLegend())->title(), QStringLiteral("GPU kernel time per node (median)"));  // says what is coloured
    canvas->expandAll();
    QTRY_VERIFY(!canvas->layoutPending());
    QTest::qWait(300);  // let the charts lay out before the grab
    const QString out = test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    QVERIFY(w.grab().save(out + QStringLiteral("/profile_dock_cuda_kernels.png")));
    auto* tabs = dock->findChild<QTabWidget*>(QStringLiteral("profileTabs"));
    tabs->setCurrentWidget(table);
    QTest::qWait(100);
    QVERIFY(w.grab().save(out + QStringLiteral("/profile_dock_cuda_kernel_table.png")));
    tabs->setCurrentIndex(0);
    costs.clear();
    metric->setCurrentIndex(1);
    QCOMPARE(costs.count(), 1);
    QVERIFY(!dock->costsAreKernelTimes());
    for (const auto& n : profile.nodes) QCOMPARE(dock->nodeCosts().value(n.node), n.selfMs.median);
    const auto slowest = std::max_element(profile.nodes.begin(), profile.nodes.end(),
                                          [](const auto& a, const auto& b) { return a.selfMs.median < b.selfMs.median; })->node;
    QVERIFY(canvas->graphScene()->nodeHeat(slowest, &hot));
    QCOMPARE(hot, ui::canvas::heatColour(1.0));
    QCOMPARE(static_cast<ui::canvas::HeatLegend*>(canvas->heatLegend())->title(), QStringLiteral("Self time per node (median)"));
  }
  // On the CPU there are no kernels: no kernel columns, no kernel lane, no heatmap choice.
  void cpuProfileShowsNoKernels() {
    ui::MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* dock = w.profileDock();
    dock->show();
    // A CUDA profile first: what it showed goes with the next one.
    dock->showProfiles(syntheticProfile(*w.controller()->document()->current(), true), syntheticProfile(*w.controller()->document()->current(), true));
    QCOMPARE(dock->nodeTable()->columnCount(), 7);
    const auto profile = syntheticProfile(*w.controller()->document()->current(), false);
    dock->showProfiles(profile, profile);
    QCOMPARE(dock->nodeTable()->columnCount(), 4);
    QCOMPARE(dock->nodeTable()->rowCount(), int(profile.nodes.size()));
    QCOMPARE(w.findChild<ui::TimelineView*>()->kernelBarCount(), 0);
    QCOMPARE(qobject_cast<QAbstractBarSeries*>(dock->charts()->byOpChart()->chart()->series().front())->count(), 1);
    QVERIFY(!dock->findChild<QComboBox*>(QStringLiteral("profileCostMetric"))->isVisible());
    QVERIFY(!dock->costsAreKernelTimes());
    QVERIFY(!dock->summaryText().contains(QStringLiteral("kernel")));
    for (const auto& n : profile.nodes) QCOMPARE(dock->nodeCosts().value(n.node), n.selfMs.median);
  }
  void badInputIsReported() {
    ui::MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* dock = w.findChild<ui::ProfileDock*>();
    w.findChild<QLineEdit*>(QStringLiteral("profileInput"))->setText(QStringLiteral("1x3xbanana"));
    QSignalSpy done(dock, &ui::ProfileDock::finished);
    dock->start();
    QVERIFY(done.wait(30000) || done.count() == 1);
    QVERIFY(!done.front().front().toBool());
    QVERIFY(done.front().at(1).toString().contains(QStringLiteral("neither a file")));
  }
  // The worker holds revision and input snapshots: opening another model mid-profile is safe.
  void openAnotherModelWhileProfiling() {
    ui::MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("transformer")));
    auto* dock = w.findChild<ui::ProfileDock*>();
    w.findChild<QSpinBox*>(QStringLiteral("profileRuns"))->setValue(200);  // runs: long enough to be still running
    QSignalSpy done(dock, &ui::ProfileDock::finished);
    dock->start();
    QVERIFY(dock->isRunning());
    QVERIFY(w.openSample(QStringLiteral("mlp")));
    QVERIFY(done.count() == 1 || done.wait(60000));
    QVERIFY(!done.front().front().toBool());  // cancelled, not shown on the new model
    done.clear();
    dock->start();
    QVERIFY(done.count() == 1 || done.wait(60000));
    QVERIFY2(done.front().front().toBool(), qPrintable(done.front().at(1).toString()));
  }
  // With "Memory" checked, both revisions record their allocations: a line each over the node
  // sequence, and the peaks in the summary. Dropping the relus drops exactly their outputs.
  void memoryOfBothRevisions() {
    ui::MainWindow w;
    w.resize(1500, 1000);
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    dropRelus(w);
    auto* dock = w.findChild<ui::ProfileDock*>();
    dock->show();
    w.findChild<QSpinBox*>(QStringLiteral("profileRuns"))->setValue(2);
    auto* chart = dock->charts()->memoryChart();
    QSignalSpy done(dock, &ui::ProfileDock::finished);
    dock->start();
    QVERIFY(done.count() == 1 || done.wait(60000));
    QVERIFY(done.front().front().toBool());
    QVERIFY(!dock->after()->memoryRecorded);
    QVERIFY(chart->isHidden());
    QVERIFY(dock->memoryText().isEmpty());

    w.findChild<QCheckBox*>(QStringLiteral("profileMemory"))->setChecked(true);
    done.clear();
    dock->start();
    QVERIFY(done.count() == 1 || done.wait(60000));
    QVERIFY2(done.front().front().toBool(), qPrintable(done.front().at(1).toString()));
    const auto& before = *dock->before();
    const auto& after = *dock->after();
    QVERIFY(before.memoryRecorded && after.memoryRecorded);
    QVERIFY(!chart->isHidden());
    const auto lines = chart->chart()->series();
    QCOMPARE(lines.size(), 2);
    auto* beforeLine = qobject_cast<QLineSeries*>(lines[0]);
    auto* afterLine = qobject_cast<QLineSeries*>(lines[1]);
    QCOMPARE(beforeLine->count(), before.memoryTimeline.size() + 1);  // from 0 at the start
    QCOMPARE(afterLine->count(), after.memoryTimeline.size() + 1);
    QCOMPARE(beforeLine->count() - afterLine->count(), 6);           // six relu nodes fewer
    QCOMPARE(afterLine->at(afterLine->count() - 1).y(), after.memoryTimeline.last().allocatedBytes / 1048576.0);
    auto allocated = [](const core::profile::Profile& p, const QString& op = {}) {
      qint64 sum = 0;
      for (const auto& n : p.nodes)
        if (op.isEmpty() || n.op == op) sum += n.allocBytes;
      return sum;
    };
    QVERIFY(allocated(before, "aten::relu") > 0);
    QCOMPARE(allocated(before) - allocated(after), allocated(before, "aten::relu"));
    QVERIFY(after.peakBytes > 0 && after.peakBytes <= before.peakBytes);
    QVERIFY(dock->memoryText().startsWith(QStringLiteral("Peak memory: original ")));
    QVERIFY(w.findChild<QLabel*>(QStringLiteral("profileSummary"))->text().contains(dock->memoryText()));
  }
};

QTEST_MAIN(TstProfileDock)
#include "tst_profile_dock.moc"
