#pragma once
// A timeline of one profiled run per profile (e.g. original above, current below): a lane per
// thread, nested op calls stacked under the node that made them, and where the profile recorded
// GPU kernels a lane per stream under them, each kernel at its device start and duration in the
// colour of the op that launched it. Wheel zooms, drag pans, hover tells op (or kernel), node,
// shapes and time; a click on a node's bar or one of its kernels selects that node.
#include "core/profile/profile.h"

#include <QtWidgets/QWidget>

namespace graft::ui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  struct Track {
    QString label;
    const core::profile::Profile* profile = nullptr;
  };
  void setTracks(QVector<Track> tracks, int run = 0);
  void resetZoom();
  // The bar under a widget position, or nullptr.
  const core::profile::OpEvent* eventAt(const QPoint& pos) const;
  // The kernel bar under a widget position, or nullptr.
  const core::profile::KernelEvent* kernelAt(const QPoint& pos) const;
  // Kernel bars drawn (the shown run's kernels of every track); 0 without kernels.
  int kernelBarCount() const { return int(kernelBars_.size()); }
  // Where kernel bar `i` is drawn, in widget coordinates.
  QRectF kernelBarRect(int i) const;
  // What hovering `pos` shows (rich text), empty over no bar.
  QString toolTipAt(const QPoint& pos) const;
  QSize sizeHint() const override { return {900, 220}; }

 Q_SIGNALS:
  void nodeClicked(core::model::NodeId id);

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  struct Bar {
    QRectF rect;  // in time (x: ms from run start) and row units (y)
    const core::profile::OpEvent* event;
  };
  struct KernelBar {
    QRectF rect;
    const core::profile::KernelEvent* kernel;
    QString op;  // the launching node's op ("aten::addmm"), empty when unattributed
  };
  QRectF toScreen(const QRectF& r) const;
  void rebuild();

  QVector<Track> tracks_;
  int run_ = 0;
  QVector<Bar> bars_;
  QVector<KernelBar> kernelBars_;
  QVector<QPair<QString, double>> trackRows_;  // label, first row (kernel lanes: "GPU", "GPU s7")
  double rows_ = 1;
  double spanMs_ = 1;
  double msPerPixel_ = 0;  // 0: fit
  double offsetMs_ = 0;
  QPoint dragStart_;
  double dragOffset_ = 0;
  bool dragged_ = false;
};

}  // namespace graft::ui
