#pragma once
// Shows one node's output tensor on both sides of a comparison: shape, dtype, min/max/mean/std,
// NaN/Inf counts, a histogram (QtCharts) and, for 4-D feature maps, a grid of channel images.
#include "core/run/compare_job.h"

#include <QtGui/QImage>
#include <QtWidgets/QWidget>

class QLabel;
class QChartView;

namespace graft::ui {

class TensorInspector : public QWidget {
  Q_OBJECT
 public:
  explicit TensorInspector(QWidget* parent = nullptr);
  // Shows node `node` of `summary` (A and B side by side); clears when it has no tensor output.
  void show(const core::run::CompareSummary& summary, core::model::NodeId node, const QString& title);
  void clear();
  QString statsText() const;
  // Nothing shown: no statistics, histogram or channel maps.
  bool isEmpty() const;
  // The channel grid as drawn (null when the node's output is not a 4-D map).
  QImage channelGrid() const { return grid_; }

 private:
  QLabel* title_ = nullptr;
  QLabel* stats_ = nullptr;
  QChartView* chart_ = nullptr;
  QLabel* maps_ = nullptr;
  QImage grid_;
};

}  // namespace graft::ui
