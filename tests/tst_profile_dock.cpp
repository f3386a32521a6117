// The Profile dock: original vs current on the same inputs, in a worker thread; timelines,
// charts, speedup, Chrome-trace export, click-to-select; and a screenshot to look at.
#include "core/edit/session.h"
#include "core/model/document.h"
#include "test_support.h"
#include "ui/render/diagram_painter.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_scene.h"
#include "ui/main_window.h"
#include "ui/profile/profile_charts.h"
#include "ui/profile/profile_dock.h"
#include "ui/profile/timeline_view.h"

#include <torch/script.h>

#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtTest/QtTest>
#include <QtWidgets/QCheckBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QSpinBox>
#include <QtWidgets/QLineEdit>

using namespace graft;

namespace {

// A revision of the cnn sample with every relu replaced by nothing (a cheaper, different graph).
void dropRelus(core::model::Document& doc) {
  auto copy = doc.current()->cloneGraph();
  std::vector<torch::jit::Node*> relus;
  for (auto* n : copy.graph->nodes())
    if (n->kind() == c10::aten::relu) relus.push_back(n);
  for (auto* n : relus) {
    n->output()->replaceAllUsesWith(n->input(0));
    copy.ids.erase(n);
    n->destroy();
  }
  graft::core::edit::Session(doc).commitBuilt(core::model::Revision::derived(*doc.current(), copy.graph, copy.ids, QStringLiteral("drop relus"), doc.ids()));
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
    dropRelus(*w.document());
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
    QVERIFY(dock->speedupText().contains(QStringLiteral("Speedup")));
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
    QCOMPARE(deltas.size(), int(w.document()->current()->opNodeIds().size()));
    w.findChild<QAction*>(QStringLiteral("deltaHeatmapAction"))->trigger();
    QVERIFY(canvas->graphScene()->heatIsDelta());
    const auto largest = std::max_element(deltas.begin(), deltas.end(), [](double a, double b) { return std::abs(a) < std::abs(b); });
    QColor changed;
    QVERIFY(canvas->graphScene()->nodeHeat(largest.key(), &changed));
    QCOMPARE(changed, ui::canvas::deltaColour(*largest > 0 ? 1.0 : -1.0));
    QVERIFY(dock->nodeTable()->rowCount() > 0);
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
    dropRelus(*w.document());
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
