#include "ui/profile/timeline_view.h"

#include <QtGui/QMouseEvent>
#include <QtGui/QPainter>
#include <QtCore/QHash>
#include <QtWidgets/QToolTip>
#include <algorithm>

namespace graft::ui {

namespace {
constexpr int kLabelWidth = 90;
constexpr int kRowHeight = 18;
constexpr int kAxisHeight = 18;
constexpr int kMaxDepth = 2;  // deeper calls are folded into their parent's bar

QColor colourFor(const QString& op) {
  const int hue = static_cast<int>(qHash(op) % 360);
  return QColor::fromHsv(hue, 110, 235);
}
}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("timelineView"));
  setMouseTracking(true);
  setMinimumHeight(120);
}

void TimelineView::setTracks(QVector<Track> tracks, int run) {
  tracks_ = std::move(tracks);
  run_ = run;
  rebuild();
  resetZoom();
}

void TimelineView::resetZoom() {
  msPerPixel_ = 0;
  offsetMs_ = 0;
  update();
}

void TimelineView::rebuild() {
  bars_.clear();
  kernelBars_.clear();
  trackRows_.clear();
  double row = 0;
  spanMs_ = 0.001;
  for (const auto& t : tracks_) {
    if (!t.profile) continue;
    trackRows_.push_back({t.label, row});
    qint64 origin = std::numeric_limits<qint64>::max();
    quint64 lanes = 0;
    for (const auto& e : t.profile->events)
      if (e.run == run_) {
        origin = std::min(origin, e.startNs);
        lanes = std::max<quint64>(lanes, e.thread + 1);
      }
    for (const auto& e : t.profile->events) {
      if (e.run != run_ || e.depth > kMaxDepth) continue;
      const double x = (e.startNs - origin) / 1e6, w = e.durationNs / 1e6;
      const double y = row + e.thread * (kMaxDepth + 1) + e.depth;
      bars_.push_back({QRectF(x, y, w, 1), &e});
      spanMs_ = std::max(spanMs_, x + w);
    }
    row += std::max<quint64>(lanes, 1) * (kMaxDepth + 1);
    // Kernels: a lane per stream under the op lanes, on the same clock (the profile's origin).
    if (t.profile->kernelsRecorded && origin != std::numeric_limits<qint64>::max()) {
      QHash<core::model::NodeId, QString> opOf;
      for (const auto& n : t.profile->nodes) opOf.insert(n.node, n.op);
      QVector<qint64> streams;
      for (const auto& k : t.profile->kernels)
        if (k.run == run_ && !streams.contains(k.stream)) streams.push_back(k.stream);
      std::sort(streams.begin(), streams.end());
      // "GPU" for the usual one stream; the tooltip names it.
      for (qint64 stream : streams)
        trackRows_.push_back(
            {streams.size() == 1 ? tr("GPU") : tr("GPU s%1").arg(stream), row + streams.indexOf(stream)});
      for (const auto& k : t.profile->kernels) {
        if (k.run != run_) continue;
        const double x = (k.startNs - origin) / 1e6, w = k.durationNs / 1e6;
        kernelBars_.push_back({QRectF(x, row + streams.indexOf(k.stream), w, 1), &k, opOf.value(k.node)});
        spanMs_ = std::max(spanMs_, x + w);
      }
      row += streams.size();
    }
    row += 0.5;
  }
  rows_ = std::max(row, 1.0);
  setMinimumHeight(kAxisHeight + static_cast<int>(rows_ * kRowHeight) + 4);
}

QRectF TimelineView::toScreen(const QRectF& r) const {
  const double plotWidth = std::max(10, width() - kLabelWidth - 6);
  const double mpp = msPerPixel_ > 0 ? msPerPixel_ : spanMs_ / plotWidth;
  return QRectF(kLabelWidth + (r.x() - offsetMs_) / mpp, kAxisHeight + r.y() * kRowHeight,
                std::max(1.0, r.width() / mpp), r.height() * kRowHeight - 2);
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (bars_.isEmpty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("Run a profile to see a timeline of one run."));
    return;
  }
  // Time axis with ticks at round milliseconds.
  const double plotWidth = std::max(10, width() - kLabelWidth - 6);
  const double mpp = msPerPixel_ > 0 ? msPerPixel_ : spanMs_ / plotWidth;
  const double visibleMs = plotWidth * mpp;
  double step = std::pow(10.0, std::floor(std::log10(visibleMs / 5)));
  if (visibleMs / step > 10) step *= 2;
  // Labels never run into each other ("0 ms0.2 ms"): the step grows (1, 2, 5 × 10^k) until the
  // widest label fits between two ticks.
  const auto label = [](double t) { return QStringLiteral("%1 ms").arg(t, 0, 'g', 4); };
  for (int i = 0; i < 12; ++i) {
    const double widest = fontMetrics().horizontalAdvance(label(offsetMs_ + visibleMs + step)) + 10;
    if (step / mpp >= widest) break;
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    step *= mantissa < 1.5 ? 2 : mantissa < 3 ? 2.5 : 2;
  }
  p.setPen(palette().color(QPalette::Mid));
  for (double t = std::ceil(offsetMs_ / step) * step; t < offsetMs_ + visibleMs; t += step) {
    const double x = kLabelWidth + (t - offsetMs_) / mpp;
    p.drawLine(QPointF(x, kAxisHeight - 4), QPointF(x, height()));
    p.drawText(QPointF(x + 2, kAxisHeight - 6), label(t));
  }
  p.setClipRect(kLabelWidth, kAxisHeight, width() - kLabelWidth, height() - kAxisHeight);
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.85);
  p.setFont(small);
  for (const auto& b : bars_) {
    const QRectF r = toScreen(b.rect);
    if (r.right() < kLabelWidth || r.left() > width()) continue;
    p.fillRect(r, colourFor(b.event->name));
    if (r.width() > 40) {
      p.setPen(Qt::black);
      p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 p.fontMetrics().elidedText(b.event->name.section(QStringLiteral("::"), 1), Qt::ElideRight,
                                            int(r.width()) - 5));
    }
  }
  // A kernel wears its launching op's colour (grey when no op launched it), with a dark edge so
  // back-to-back kernels of one op stay apart.
  for (const auto& b : kernelBars_) {
    const QRectF r = toScreen(b.rect);
    if (r.right() < kLabelWidth || r.left() > width()) continue;
    p.fillRect(r, b.op.isEmpty() ? QColor(190, 190, 190) : colourFor(b.op));
    p.setPen(QColor(0, 0, 0, 90));
    p.drawRect(r.adjusted(0, 0, -1, -1));
    if (r.width() > 40) {
      p.setPen(Qt::black);
      p.drawText(r.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                 p.fontMetrics().elidedText(b.kernel->name, Qt::ElideRight, int(r.width()) - 5));
    }
  }
  p.setClipping(false);
  p.setFont(font());
  p.setPen(palette().color(QPalette::Text));
  for (const auto& [label, row] : trackRows_)
    p.drawText(QRectF(4, kAxisHeight + row * kRowHeight, kLabelWidth - 8, kRowHeight), Qt::AlignVCenter,
               p.fontMetrics().elidedText(label, Qt::ElideRight, kLabelWidth - 8));
}

const core::profile::OpEvent* TimelineView::eventAt(const QPoint& pos) const {
  const core::profile::OpEvent* best = nullptr;
  for (const auto& b : bars_)
    if (toScreen(b.rect).adjusted(0, 0, 0, 2).contains(pos) && (!best || b.event->depth >= best->depth)) best = b.event;
  return best;
}

const core::profile::KernelEvent* TimelineView::kernelAt(const QPoint& pos) const {
  for (const auto& b : kernelBars_)
    if (toScreen(b.rect).adjusted(0, 0, 0, 2).contains(pos)) return b.kernel;
  return nullptr;
}

QRectF TimelineView::kernelBarRect(int i) const {
  return i >= 0 && i < kernelBars_.size() ? toScreen(kernelBars_[i].rect) : QRectF();
}

QString TimelineView::toolTipAt(const QPoint& pos) const {
  if (const auto* k = kernelAt(pos)) {
    QString text = QStringLiteral("<b>%1</b><br>%2 µs on the GPU, stream %3").arg(k->name.toHtmlEscaped())
                       .arg(k->durationNs / 1000.0, 0, 'f', 1).arg(k->stream);
    QString op;
    for (const auto& b : kernelBars_)
      if (b.kernel == k) op = b.op;
    if (k->node != core::model::kNoNode)
      text += tr("<br>launched by %1, node #%2 (click to select)").arg(op).arg(k->node);
    else text += tr("<br>launched outside every node (the interpreter or allocator)");
    return text;
  }
  if (const auto* e = eventAt(pos)) {
    QString text = QStringLiteral("<b>%1</b><br>%2 µs").arg(e->name).arg(e->durationNs / 1000.0, 0, 'f', 1);
    if (!e->shapes.isEmpty()) text += QStringLiteral("<br>inputs: ") + e->shapes;
    if (e->node != core::model::kNoNode) text += tr("<br>node #%1 (click to select)").arg(e->node);
    else if (e->depth > 0) text += tr("<br>called inside another op");
    return text;
  }
  return {};
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const double plotWidth = std::max(10, width() - kLabelWidth - 6);
  const double mpp = msPerPixel_ > 0 ? msPerPixel_ : spanMs_ / plotWidth;
  const double atMs = offsetMs_ + (event->position().x() - kLabelWidth) * mpp;
  const double factor = event->angleDelta().y() > 0 ? 0.8 : 1.25;
  msPerPixel_ = std::clamp(mpp * factor, 1e-6, spanMs_ / plotWidth);
  offsetMs_ = std::max(0.0, atMs - (event->position().x() - kLabelWidth) * msPerPixel_);
  update();
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  dragStart_ = event->pos();
  dragOffset_ = offsetMs_;
  dragged_ = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) {
    const double plotWidth = std::max(10, width() - kLabelWidth - 6);
    const double mpp = msPerPixel_ > 0 ? msPerPixel_ : spanMs_ / plotWidth;
    if ((event->pos() - dragStart_).manhattanLength() > 3) dragged_ = true;
    offsetMs_ = std::max(0.0, dragOffset_ - (event->pos().x() - dragStart_.x()) * mpp);
    update();
    return;
  }
  if (const QString text = toolTipAt(event->pos()); !text.isEmpty())
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
  else QToolTip::hideText();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (dragged_) return;
  if (const auto* k = kernelAt(event->pos()); k && k->node != core::model::kNoNode) Q_EMIT nodeClicked(k->node);
  else if (const auto* e = eventAt(event->pos()); e && e->node != core::model::kNoNode) Q_EMIT nodeClicked(e->node);
}

}  // namespace graft::ui
