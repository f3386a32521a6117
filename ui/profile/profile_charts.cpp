#include "ui/profile/profile_charts.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtGui/QFont>
#include <QtCharts/QBarSet>
#include <QtCharts/QBoxPlotSeries>
#include <QtCharts/QBoxSet>
#include <QtCharts/QChartView>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <QtWidgets/QHBoxLayout>
#include <QtCore/QSet>

namespace graft::ui {

namespace {

constexpr int kTopOps = 8;

QChartView* makeView(const QString& title, QWidget* parent) {
  auto* chart = new QChart();
  chart->setTitle(title);
  // QtCharts elides category labels that get too little height each: a small title, the legend
  // at the top and thin margins leave the op-kind bars room for their names.
  QFont titleFont = chart->titleFont();
  titleFont.setPixelSize(11);
  chart->setTitleFont(titleFont);
  chart->legend()->setAlignment(Qt::AlignTop);
  chart->setMargins(QMargins(2, 2, 2, 2));
  auto* view = new QChartView(chart, parent);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumSize(280, 250);
  return view;
}

void resetChart(QChart* chart) {
  chart->removeAllSeries();
  for (auto* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
}

}  // namespace

ProfileCharts::ProfileCharts(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  byOp_ = makeView(tr("Time per op kind (median ms per run)"), this);
  latency_ = makeView(tr("Latency per run (ms)"), this);
  distribution_ = makeView(tr("Latency distribution (ms)"), this);
  byOp_->setObjectName(QStringLiteral("byOpChart"));
  latency_->setObjectName(QStringLiteral("latencyChart"));
  distribution_->setObjectName(QStringLiteral("distributionChart"));
  layout->addWidget(byOp_, 3);
  layout->addWidget(latency_, 2);
  layout->addWidget(distribution_, 2);
  memory_ = makeView(tr("Allocated memory over the nodes (MiB)"), this);
  memory_->setObjectName(QStringLiteral("memoryChart"));
  memory_->hide();
  layout->addWidget(memory_, 3);
}

// One line per profile that recorded memory: the level after each node it ran, from 0 at the start.
void ProfileCharts::showMemory(const QVector<Series>& series) {
  QChart* chart = memory_->chart();
  resetChart(chart);
  auto* x = new QValueAxis();
  x->setTitleText(tr("node, in run order"));
  x->setLabelFormat(QStringLiteral("%d"));
  auto* y = new QValueAxis();
  y->setLabelFormat(QStringLiteral("%.3g"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  double maxMiB = 0;
  int maxNodes = 1;
  const auto timingLines = latency_->chart()->series();
  for (int i = 0; i < series.size(); ++i) {
    const auto* p = series[i].profile;
    if (!p->memoryRecorded) continue;
    auto* line = new QLineSeries();
    line->setName(series[i].label);
    line->append(0, 0);
    for (int k = 0; k < p->memoryTimeline.size(); ++k) {
      const double mib = p->memoryTimeline[k].allocatedBytes / 1048576.0;
      line->append(k + 1, mib);
      maxMiB = std::max(maxMiB, mib);
    }
    maxNodes = std::max<int>(maxNodes, p->memoryTimeline.size());
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    // The same colour per profile as in the timing charts.
    if (i < timingLines.size()) line->setColor(static_cast<QLineSeries*>(timingLines[i])->color());
  }
  x->setRange(0, maxNodes);
  y->setRange(0, maxMiB * 1.1 + 1e-6);
  memory_->setVisible(!chart->series().isEmpty());
}

void ProfileCharts::setProfiles(const QVector<Series>& series) {
  // Op kinds: the slowest of every profile, so a kind that a rewrite removed still shows (as 0).
  QStringList ops;
  for (const auto& s : series)
    for (int i = 0; i < s.profile->byOp.size() && i < kTopOps; ++i)
      if (!ops.contains(s.profile->byOp[i].op)) ops << s.profile->byOp[i].op;
  std::reverse(ops.begin(), ops.end());  // slowest at the top of a horizontal bar chart

  QChart* bars = byOp_->chart();
  resetChart(bars);
  auto* barSeries = new QHorizontalBarSeries();
  for (const auto& s : series) {
    auto* set = new QBarSet(s.label);
    for (const auto& op : ops) {
      double v = 0;
      for (const auto& k : s.profile->byOp)
        if (k.op == op) v = k.totalMs.median;
      *set << v;
    }
    barSeries->append(set);
  }
  bars->addSeries(barSeries);
  auto* cat = new QBarCategoryAxis();
  QStringList labels;
  for (const auto& op : ops) labels << op.section(QStringLiteral("::"), 1);
  cat->append(labels);
  QFont small = cat->labelsFont();
  small.setPixelSize(10);
  cat->setLabelsFont(small);
  bars->addAxis(cat, Qt::AlignLeft);
  barSeries->attachAxis(cat);
  auto* valueAxis = new QValueAxis();
  valueAxis->setLabelFormat(QStringLiteral("%.2g"));
  bars->addAxis(valueAxis, Qt::AlignBottom);
  barSeries->attachAxis(valueAxis);

  QChart* lines = latency_->chart();
  resetChart(lines);
  auto* x = new QValueAxis();
  x->setTitleText(tr("run"));
  x->setLabelFormat(QStringLiteral("%d"));
  auto* y = new QValueAxis();
  lines->addAxis(x, Qt::AlignBottom);
  lines->addAxis(y, Qt::AlignLeft);
  double maxMs = 0;
  int maxRuns = 1;
  for (const auto& s : series) {
    auto* line = new QLineSeries();
    line->setName(s.label);
    for (int i = 0; i < s.profile->runMs.size(); ++i) {
      line->append(i, s.profile->runMs[i]);
      maxMs = std::max(maxMs, s.profile->runMs[i]);
    }
    maxRuns = std::max<int>(maxRuns, s.profile->runMs.size());
    lines->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  }
  x->setRange(0, std::max(1, maxRuns - 1));
  y->setRange(0, maxMs * 1.1 + 1e-6);

  QChart* boxes = distribution_->chart();
  resetChart(boxes);
  auto* boxSeries = new QBoxPlotSeries();
  double lo = 1e300, hi = 0;
  for (const auto& s : series) {
    const auto& st = s.profile->run;
    auto values = s.profile->runMs;
    std::sort(values.begin(), values.end());
    auto* box = new QBoxSet(values.isEmpty() ? 0 : values.front(), st.q1, st.median, st.q3,
                            values.isEmpty() ? 0 : values.back(), s.label);
    boxSeries->append(box);
    if (!values.isEmpty()) {
      lo = std::min(lo, values.front());
      hi = std::max(hi, values.back());
    }
  }
  // One colour per profile, as in the other two charts.
  const auto boxSets = boxSeries->boxSets();
  const auto lineSeries = lines->series();
  for (int i = 0; i < boxSets.size() && i < lineSeries.size(); ++i)
    boxSets[i]->setBrush(static_cast<QLineSeries*>(lineSeries[i])->color());
  boxes->addSeries(boxSeries);
  boxes->createDefaultAxes();
  if (hi > 0)
    for (auto* axis : boxes->axes(Qt::Vertical)) axis->setRange(lo * 0.9, hi * 1.1);
  boxes->legend()->hide();
  showMemory(series);
}

}  // namespace graft::ui
