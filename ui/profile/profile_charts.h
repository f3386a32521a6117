#pragma once
// QtCharts views of one or two profiles: time per op kind (bars; where GPU kernels were recorded,
// their device time per op kind beside it), latency per run (lines) and its distribution (box
// plots); where memory was recorded, allocated bytes over the node sequence.
#include "core/profile/profile.h"

#include <QtWidgets/QWidget>

class QChartView;

namespace graft::ui {

class ProfileCharts : public QWidget {
  Q_OBJECT
 public:
  explicit ProfileCharts(QWidget* parent = nullptr);
  struct Series {
    QString label;
    const core::profile::Profile* profile = nullptr;
  };
  void setProfiles(const QVector<Series>& series);
  // No profile: every chart empty (another model was opened, or it was closed).
  void clear();
  bool isEmpty() const;
  QChartView* byOpChart() const { return byOp_; }
  QChartView* latencyChart() const { return latency_; }
  QChartView* distributionChart() const { return distribution_; }
  // Per op kind, the median device time per run of the kernels its nodes launched (empty without
  // kernels): the "GPU kernels" bars.
  static QHash<QString, double> kernelMsByOp(const core::profile::Profile& profile);
  // Hidden unless a profile recorded memory.
  QChartView* memoryChart() const { return memory_; }

 private:
  QChartView* byOp_;
  QChartView* latency_;
  QChartView* distribution_;
  QChartView* memory_;
  void showMemory(const QVector<Series>& series);
};

}  // namespace graft::ui
