#pragma once
// The cost heatmap's legend: the colour ramp from 0 to the slowest node's self time.
#include <QtWidgets/QWidget>

namespace graft::ui::canvas {

class HeatLegend : public QWidget {
  Q_OBJECT
 public:
  explicit HeatLegend(QWidget* parent = nullptr);
  void setMaxMs(double ms, bool signedDelta = false);
  QSize sizeHint() const override { return {260, 44}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  double maxMs_ = 0;
  bool signed_ = false;
};

}  // namespace graft::ui::canvas
