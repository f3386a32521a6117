#include "ui/canvas/heat_legend.h"

#include "ui/render/diagram_painter.h"

#include <QtGui/QPainter>

namespace graft::ui::canvas {

HeatLegend::HeatLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("heatLegend"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
  resize(sizeHint());
}

void HeatLegend::setMaxMs(double ms, bool signedDelta) {
  maxMs_ = ms;
  signed_ = signedDelta;
  title_.clear();
  update();
}

void HeatLegend::setLabels(const QString& title, const QString& low, const QString& high) {
  signed_ = false;
  title_ = title;
  low_ = low;
  high_ = high;
  update();
}

void HeatLegend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setPen(QColor(0x90, 0x90, 0x90));
  p.setBrush(QColor(255, 255, 255, 235));
  p.drawRoundedRect(rect().adjusted(0, 0, -1, -1), 4, 4);
  const QRect ramp(8, 20, width() - 16, 10);
  for (int x = 0; x < ramp.width(); ++x)
    p.fillRect(QRect(ramp.left() + x, ramp.top(), 1, ramp.height()),
               signed_ ? deltaColour(2.0 * x / std::max(1, ramp.width() - 1) - 1.0) : heatColour(double(x) / std::max(1, ramp.width() - 1)));
  p.setPen(Qt::black);
  const bool labelled = !title_.isEmpty();
  p.drawText(QRect(8, 3, width() - 16, 16), Qt::AlignLeft | Qt::AlignVCenter,
             labelled ? title_ : signed_ ? tr("Change of self time vs the original") : tr("Self time per node (median)"));
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.85);
  p.setFont(small);
  p.drawText(QRect(8, 30, width() - 16, 13), Qt::AlignLeft,
             labelled ? low_ : signed_ ? QStringLiteral("−%1 ms").arg(maxMs_, 0, 'g', 3) : QStringLiteral("0 ms"));
  p.drawText(QRect(8, 30, width() - 16, 13), Qt::AlignRight,
             labelled ? high_ : QStringLiteral("%1%2 ms").arg(signed_ ? QStringLiteral("+") : QString()).arg(maxMs_, 0, 'g', 3));
}

}  // namespace graft::ui::canvas
