#include "ui/tensor_inspector.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>
#include <QtWidgets/QLabel>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

namespace {
QString statsLine(const char* side, const std::optional<core::run::TensorStats>& s) {
  if (!s) return QStringLiteral("%1: no tensor output kept").arg(QLatin1String(side));
  return QStringLiteral("%1: %2 %3  min %4  max %5  mean %6  std %7  NaN %8  Inf %9")
      .arg(QLatin1String(side), s->dtype, s->shape)
      .arg(s->min, 0, 'g', 5).arg(s->max, 0, 'g', 5).arg(s->mean, 0, 'g', 5).arg(s->std, 0, 'g', 5)
      .arg(s->nanCount).arg(s->infCount);
}
}  // namespace

TensorInspector::TensorInspector(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel(this);
  stats_ = new QLabel(this);
  stats_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  stats_->setWordWrap(true);
  chart_ = new QChartView(new QChart(), this);
  chart_->setMinimumHeight(160);
  layout->addWidget(title_);
  layout->addWidget(stats_);
  layout->addWidget(chart_, 1);
  clear();
}

void TensorInspector::clear() {
  title_->setText(tr("Double-click a node row to inspect its output."));
  stats_->clear();
  chart_->chart()->removeAllSeries();
}

QString TensorInspector::statsText() const { return stats_->text(); }

void TensorInspector::show(const core::run::CompareSummary& summary, core::model::NodeId node, const QString& title) {
  const auto a = core::run::statsFor(summary, node, false);
  const auto b = core::run::statsFor(summary, node, true);
  title_->setText(title);
  stats_->setText(statsLine("A", a) + QLatin1Char('\n') + statsLine("B", b));
  auto* chart = chart_->chart();
  chart->removeAllSeries();
  for (auto* axis : chart->axes()) chart->removeAxis(axis);
  auto* series = new QBarSeries();
  for (const auto& [name, s] : {std::pair{"A", a}, std::pair{"B", b}}) {
    if (!s) continue;
    auto* set = new QBarSet(QLatin1String(name));
    for (double c : s->histogram) *set << c;
    series->append(set);
  }
  chart->addSeries(series);
  chart->setTitle(a ? tr("histogram of A's range [%1, %2]; B binned over its own range").arg(a->histLo, 0, 'g', 4).arg(a->histHi, 0, 'g', 4)
                    : QString());
  auto* y = new QValueAxis();
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
}

}  // namespace graft::ui
