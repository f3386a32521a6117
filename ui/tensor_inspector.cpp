#include "ui/tensor_inspector.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>
#include <QtGui/QPainter>
#include <QtGui/QPixmap>
#include <QtWidgets/QGraphicsLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QVBoxLayout>

namespace graft::ui {

namespace {
QString statsLine(const char* side, const std::optional<core::run::TensorStats>& s) {
  if (!s) return QStringLiteral("%1: no tensor output kept").arg(QLatin1String(side));
  return QStringLiteral("%1: %2 %3 on %4  min %5  max %6  mean %7  std %8  NaN %9  Inf %10")
      .arg(QLatin1String(side), s->dtype, s->shape, s->device)
      .arg(s->min, 0, 'g', 5).arg(s->max, 0, 'g', 5).arg(s->mean, 0, 'g', 5).arg(s->std, 0, 'g', 5)
      .arg(s->nanCount).arg(s->infCount);
}
constexpr int kCell = 40;     // pixels per channel image
constexpr int kPerRow = 16;
constexpr int kLabel = 22;    // room for the side's letter

// One row block per side: its channels as greyscale images (each scaled to its own range).
QImage drawChannelGrid(const std::optional<core::run::TensorStats>& a, const std::optional<core::run::TensorStats>& b) {
  std::vector<std::pair<QString, const core::run::TensorStats*>> sides;
  if (a && !a->channels.isEmpty()) sides.push_back({QStringLiteral("A"), &*a});
  if (b && !b->channels.isEmpty()) sides.push_back({QStringLiteral("B"), &*b});
  if (sides.empty()) return {};
  int rows = 0;
  for (const auto& [name, st] : sides) rows += (int(st->channels.size()) + kPerRow - 1) / kPerRow;
  QImage grid(kLabel + kPerRow * (kCell + 2), rows * (kCell + 2) + 4 * int(sides.size()), QImage::Format_RGB32);
  grid.fill(Qt::white);
  QPainter p(&grid);
  int y = 0;
  for (const auto& [name, st] : sides) {
    p.setPen(Qt::black);
    p.drawText(QRect(0, y, kLabel, kCell), Qt::AlignCenter, name);
    for (int c = 0; c < st->channels.size(); ++c) {
      QImage map(st->mapWidth, st->mapHeight, QImage::Format_Grayscale8);
      const auto& values = st->channels[c];
      for (int r = 0; r < st->mapHeight; ++r) {
        uchar* line = map.scanLine(r);
        for (int col = 0; col < st->mapWidth; ++col)
          line[col] = uchar(std::lround(values[r * st->mapWidth + col] * 255));
      }
      const QRect cell(kLabel + (c % kPerRow) * (kCell + 2), y + (c / kPerRow) * (kCell + 2), kCell, kCell);
      p.drawImage(cell, map);  // nearest-neighbour: small maps stay blocky, as they are
    }
    y += ((int(st->channels.size()) + kPerRow - 1) / kPerRow) * (kCell + 2) + 4;
  }
  return grid;
}

}  // namespace

TensorInspector::TensorInspector(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel(this);
  stats_ = new QLabel(this);
  stats_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  stats_->setWordWrap(true);
  chart_ = new QChartView(new QChart(), this);
  chart_->setMinimumHeight(90);  // docked at 1366x768 the Compare dock is about 270 pixels high
  // At that height the title, legend and margins would leave the bars no room: small title, legend
  // beside the bars, no margins.
  auto* chart = chart_->chart();
  chart->setMargins(QMargins(0, 0, 0, 0));
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  chart->setBackgroundRoundness(0);
  chart->legend()->setAlignment(Qt::AlignRight);
  QFont small = chart->titleFont();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart->setTitleFont(small);
  layout->addWidget(title_);
  layout->addWidget(stats_);
  maps_ = new QLabel(this);
  maps_->setObjectName(QStringLiteral("channelMaps"));
  // The channel maps are cut at the right rather than widen the view past the Compare table's share.
  maps_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  layout->addWidget(chart_, 1);
  layout->addWidget(maps_);
  clear();
}

void TensorInspector::clear() {
  title_->setText(tr("Double-click a node row to inspect its output."));
  stats_->clear();
  // Nothing of the last node stays: series, axes and the title naming its range.
  auto* chart = chart_->chart();
  chart->removeAllSeries();
  for (auto* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
  chart->setTitle(QString());
  maps_->clear();
  maps_->setToolTip({});
  grid_ = {};
}

QString TensorInspector::statsText() const { return stats_->text(); }

bool TensorInspector::isEmpty() const {
  return stats_->text().isEmpty() && chart_->chart()->series().isEmpty() && chart_->chart()->title().isEmpty() &&
         grid_.isNull();
}

void TensorInspector::show(const core::run::CompareSummary& summary, core::model::NodeId node, const QString& title) {
  const auto a = core::run::statsFor(summary, node, false);
  const auto b = core::run::statsFor(summary, node, true);
  title_->setText(title);
  stats_->setText(statsLine("A", a) + QLatin1Char('\n') + statsLine("B", b));
  auto* chart = chart_->chart();
  chart->removeAllSeries();
  for (auto* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
  auto* series = new QBarSeries();
  for (const auto& [name, s] : {std::pair{"A", a}, std::pair{"B", b}}) {
    if (!s) continue;
    auto* set = new QBarSet(QLatin1String(name));
    for (double c : s->histogram) *set << c;
    series->append(set);
  }
  chart->addSeries(series);
  chart->setTitle(a ? tr("elements per bin of A's range [%1, %2]; B binned over its own range")
                          .arg(a->histLo, 0, 'g', 4)
                          .arg(a->histHi, 0, 'g', 4)
                    : QString());
  auto* y = new QValueAxis();
  y->setLabelFormat(QStringLiteral("%.0f"));
  y->setTickCount(3);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(y);
  grid_ = drawChannelGrid(a, b);
  maps_->setPixmap(QPixmap::fromImage(grid_));
  const auto* shown = b && !b->channels.isEmpty() ? &*b : (a && !a->channels.isEmpty() ? &*a : nullptr);
  maps_->setToolTip(shown ? tr("Channels 0–%1 of %2 (item 0), each scaled to its own min–max: black low, white high")
                                .arg(shown->channels.size() - 1).arg(shown->channelCount)
                          : QString());
}

}  // namespace graft::ui
