#pragma once
// The heatmap's legend: the colour ramp from 0 to the slowest node's self time, or any labelled
// range (errors).
#include <QtWidgets/QWidget>

namespace graft::ui::canvas {

class HeatLegend : public QWidget {
  Q_OBJECT
 public:
  explicit HeatLegend(QWidget* parent = nullptr);
  // `kernelTime`: the costs are the device time of each node's GPU kernels, not its host self time.
  void setMaxMs(double ms, bool signedDelta = false, bool kernelTime = false);
  // Any other quantity: its title and the texts at the two ends of the ramp.
  void setLabels(const QString& title, const QString& low, const QString& high);
  // Wide enough for its title and both end texts (330 pixels at least).
  QSize sizeHint() const override;
  // The title as drawn.
  QString title() const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  QString lowText() const;
  QString highText() const;
  QFont smallFont() const;
  double maxMs_ = 0;
  bool signed_ = false;
  bool kernel_ = false;
  QString title_, low_, high_;  // set: shown instead of the self-time texts
};

}  // namespace graft::ui::canvas
