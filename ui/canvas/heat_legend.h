#pragma once
// The heatmap's legend: the colour ramp from 0 to the slowest node's self time, or any labelled
// range (errors).
#include <QtWidgets/QWidget>

namespace graft::ui::canvas {

class HeatLegend : public QWidget {
  Q_OBJECT
 public:
  explicit HeatLegend(QWidget* parent = nullptr);
  void setMaxMs(double ms, bool signedDelta = false);
  // Any other quantity: its title and the texts at the two ends of the ramp.
  void setLabels(const QString& title, const QString& low, const QString& high);
  QSize sizeHint() const override { return {330, 44}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  double maxMs_ = 0;
  bool signed_ = false;
  QString title_, low_, high_;  // set: shown instead of the self-time texts
};

}  // namespace graft::ui::canvas
