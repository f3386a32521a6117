#pragma once
// Shows one node's output tensor on both sides of a comparison: shape, dtype, min/max/mean/std,
// NaN/Inf counts and a histogram (QtCharts).
#include "core/run/compare_job.h"

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

 private:
  QLabel* title_ = nullptr;
  QLabel* stats_ = nullptr;
  QChartView* chart_ = nullptr;
};

}  // namespace graft::ui
