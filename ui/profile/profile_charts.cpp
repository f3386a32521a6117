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
#include <QtCore/QHash>
#include <QtCore/QSet>

#include <algorithm>
#include <cmath>

namespace graft::ui {

namespace {

constexpr int kTopOps = 5;  // more rows than this get no room for their names docked on a laptop screen

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
  view->setMinimumSize(220, 110);  // docked on a 1366x768 screen the whole chart, axis labels included, shows
  return view;
}

// A value axis from 0 (or `low`) to a round number above `high`, with few ticks and labels in
// plain decimals sized to the range: "%.2g" printed 100 and 140 as "1e+02" and "1.4e+02", which
// ran together on a narrow chart.
void fitAxis(QValueAxis* axis, double low, double high, int ticks = 4) {
  if (!(high > low)) high = low + 1;
  axis->setRange(low, high);
  axis->setTickCount(ticks);
  axis->applyNiceNumbers();
  const double span = axis->max() - axis->min();
  const double step = span / std::max(1, axis->tickCount() - 1);
  int decimals = 0;
  // As many decimals as the step needs to print exactly (0.25: two; 20: none).
  for (; decimals < 6; ++decimals) {
    const double scaled = step * std::pow(10.0, decimals);
    if (scaled >= 0.999 && std::abs(scaled - std::round(scaled)) < 0.01) break;
  }
  axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

// QtCharts replaces a label with "…" when it thinks it lacks room, even where the text would fit
// (docked at 1366x768 every op name and run number was elided): labels are drawn whole.
void showWholeLabels(QChart* chart) {
  for (QAbstractAxis* axis : chart->axes()) axis->setTruncateLabels(false);
}

void resetChart(QChart* chart) {
  chart->removeAllSeries();
  for (auto* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
}

}  // namespace

void ProfileCharts::clear() {
  for (QChartView* view : {byOp_, latency_, distribution_, memory_}) resetChart(view->chart());
  memory_->hide();
}

bool ProfileCharts::isEmpty() const {
  for (QChartView* view : {byOp_, latency_, distribution_, memory_})
    if (!view->chart()->series().isEmpty()) return false;
  return true;
}

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
  x->setTickCount(5);
  x->applyNiceNumbers();
  x->setLabelFormat(QStringLiteral("%d"));
  fitAxis(y, 0, maxMiB * 1.05 + 1e-6);
  showWholeLabels(chart);
  memory_->setVisible(!chart->series().isEmpty());
}

QHash<QString, double> ProfileCharts::kernelMsByOp(const core::profile::Profile& profile) {
  QHash<QString, double> ms;
  if (profile.kernelsRecorded)
    for (const auto& n : profile.nodes) ms[n.op] += n.kernelMs.median;
  return ms;
}

void ProfileCharts::setProfiles(const QVector<Series>& series) {
  // Op kinds: the slowest of every profile, so a kind that a rewrite removed still shows (as 0);
  // where kernels were recorded, also the kinds whose kernels take longest on the device.
  QStringList ops;
  for (const auto& s : series) {
    for (int i = 0; i < s.profile->byOp.size() && i < kTopOps; ++i)
      if (!ops.contains(s.profile->byOp[i].op)) ops << s.profile->byOp[i].op;
    const auto kernelMs = kernelMsByOp(*s.profile);
    QStringList byKernel = kernelMs.keys();
    std::sort(byKernel.begin(), byKernel.end(), [&](const QString& a, const QString& b) {
      return kernelMs[a] != kernelMs[b] ? kernelMs[a] > kernelMs[b] : a < b;
    });
    for (int i = 0; i < byKernel.size() && i < kTopOps / 2; ++i)
      if (kernelMs[byKernel[i]] > 0 && !ops.contains(byKernel[i])) ops << byKernel[i];
  }
  std::reverse(ops.begin(), ops.end());  // slowest at the top of a horizontal bar chart

  QChart* bars = byOp_->chart();
  resetChart(bars);
  auto* barSeries = new QHorizontalBarSeries();
  double maxBar = 0;
  for (const auto& s : series) {
    auto* set = new QBarSet(s.label);
    for (const auto& op : ops) {
      double v = 0;
      for (const auto& k : s.profile->byOp)
        if (k.op == op) v = k.totalMs.median;
      *set << v;
    }
    barSeries->append(set);
    // On CUDA a node's host time is its launch: its kernels' device time is a bar of its own.
    if (s.profile->kernelsRecorded) {
      const auto kernelMs = kernelMsByOp(*s.profile);
      auto* kernels = new QBarSet(tr("%1 GPU kernels").arg(s.label));
      for (const auto& op : ops) {
        *kernels << kernelMs.value(op);
        maxBar = std::max(maxBar, kernelMs.value(op));
      }
      barSeries->append(kernels);
    }
  }
  bars->addSeries(barSeries);
  // The legend beside the bars: the height goes to the op kinds' rows and their names.
  bars->legend()->setAlignment(Qt::AlignRight);
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
  for (const auto& s : series)
    for (const auto& k : s.profile->byOp) maxBar = std::max(maxBar, k.totalMs.median);
  bars->addAxis(valueAxis, Qt::AlignBottom);
  barSeries->attachAxis(valueAxis);
  fitAxis(valueAxis, 0, maxBar * 1.05 + 1e-9, 3);

  QChart* lines = latency_->chart();
  resetChart(lines);
  auto* x = new QValueAxis();
  x->setLabelFormat(QStringLiteral("%d"));  // the run's number: the chart's title names the axis
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
  x->setTickCount(std::min(5, std::max(2, maxRuns)));
  fitAxis(y, 0, maxMs * 1.05 + 1e-6);

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
    for (auto* axis : boxes->axes(Qt::Vertical))
      if (auto* v = qobject_cast<QValueAxis*>(axis)) fitAxis(v, lo * 0.95, hi * 1.05);
  boxes->legend()->hide();
  // One profile needs no legend: the row it would take goes to the op kinds' names.
  const bool several =
      series.size() > 1 || !byOp_->chart()->series().isEmpty() && byOp_->chart()->legend()->markers().size() > 1;
  for (QChartView* view : {byOp_, latency_}) view->chart()->legend()->setVisible(several);
  showMemory(series);
  for (QChartView* view : {byOp_, latency_, distribution_}) showWholeLabels(view->chart());
}

}  // namespace graft::ui
