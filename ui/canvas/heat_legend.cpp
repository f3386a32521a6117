#include "ui/canvas/heat_legend.h"

#include "ui/render/diagram_painter.h"

#include <QtGui/QFontMetrics>
#include <QtGui/QPainter>

#include <algorithm>

namespace graft::ui::canvas {

HeatLegend::HeatLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("heatLegend"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
  resize(sizeHint());
}

void HeatLegend::setMaxMs(double ms, bool signedDelta, bool kernelTime) {
  maxMs_ = ms;
  signed_ = signedDelta;
  kernel_ = kernelTime;
  title_.clear();
  resize(sizeHint());
  update();
}

QString HeatLegend::title() const {
  if (!title_.isEmpty()) return title_;
  if (kernel_) return signed_ ? tr("Change of kernel time vs the original") : tr("GPU kernel time per node (median)");
  return signed_ ? tr("Change of self time vs the original") : tr("Self time per node (median)");
}

QString HeatLegend::lowText() const {
  if (!title_.isEmpty()) return low_;
  return signed_ ? QStringLiteral("−%1 ms").arg(maxMs_, 0, 'g', 3) : QStringLiteral("0 ms");
}

QString HeatLegend::highText() const {
  if (!title_.isEmpty()) return high_;
  return QStringLiteral("%1%2 ms").arg(signed_ ? QStringLiteral("+") : QString()).arg(maxMs_, 0, 'g', 3);
}

QFont HeatLegend::smallFont() const {
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.85);
  return small;
}

QSize HeatLegend::sizeHint() const {
  const QFontMetrics title(font()), ends(smallFont());
  const int width = std::max({330, title.horizontalAdvance(this->title()) + 24,
                              ends.horizontalAdvance(lowText()) + ends.horizontalAdvance(highText()) + 48});
  return {width, std::max(44, title.height() + ends.height() + 18)};
}

void HeatLegend::setLabels(const QString& title, const QString& low, const QString& high) {
  signed_ = false;
  title_ = title;
  low_ = low;
  high_ = high;
  resize(sizeHint());
  update();
}

void HeatLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setPen(QColor(0x90, 0x90, 0x90));
  p.setBrush(QColor(255, 255, 255, 235));
  p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 4, 4);
  const QRect ramp(8, QFontMetrics(font()).height() + 5, width() - 16, 10);
  for (int x = 0; x < ramp.width(); ++x)
    p.fillRect(QRect(ramp.left() + x, ramp.top(), 1, ramp.height()),
               signed_ ? deltaColour(2.0 * x / std::max(1, ramp.width() - 1) - 1.0)
                       : heatColour(double(x) / std::max(1, ramp.width() - 1)));
  p.setPen(Qt::black);
  // Title above the ramp, end texts below it, each in the height its font needs.
  const int titleHeight = QFontMetrics(font()).height();
  p.drawText(QRect(8, 3, width() - 16, titleHeight), Qt::AlignLeft | Qt::AlignVCenter, title());
  p.setFont(smallFont());
  const int endsHeight = QFontMetrics(smallFont()).height();
  p.drawText(QRect(8, ramp.bottom() + 1, width() - 16, endsHeight), Qt::AlignLeft, lowText());
  p.drawText(QRect(8, ramp.bottom() + 1, width() - 16, endsHeight), Qt::AlignRight, highText());
}

}  // namespace graft::ui::canvas
