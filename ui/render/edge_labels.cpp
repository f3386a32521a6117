#include "ui/render/edge_labels.h"

#include "core/layout/edge_stubs.h"
#include "core/layout/labels.h"

#include <QtCore/QHash>
#include <QtCore/QLineF>
#include <QtCore/QSet>
#include <QtGui/QPolygonF>
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace graft::ui::canvas {

namespace {

// Along the route, the middle first; the ends last, where edges bunch at their nodes.
constexpr std::array<double, 5> kAlong = {0.5, 0.35, 0.65, 0.2, 0.8};
constexpr double kGap = 4;         // between the line and its label
constexpr double kCell = 96;       // grid cell of the spatial index (about one label wide)
// kEdgeLabelPixels of DejaVu Sans Mono: 0.602 em a character, ascent + descent 1.17 em.
constexpr double kCharAdvance = 0.61 * kEdgeLabelPixels;
constexpr double kHeight = kEdgeLabelPixels + 3;
// Clear space kept around a group's title bar: a label touching it reads as part of the title.
constexpr double kTitleClearance = 3;

// Rects in uniform grid buckets: a label test looks at a few cells, not at every rect.
class RectIndex {
 public:
  void insert(const QRectF& r) {
    const int id = int(rects_.size());
    rects_ << r;
    forCells(r, [&](qint64 cell) { cells_[cell] << id; });
  }
  bool hits(const QRectF& r) const {
    bool hit = false;
    forCells(r, [&](qint64 cell) {
      if (hit) return;
      const auto it = cells_.constFind(cell);
      if (it == cells_.constEnd()) return;
      for (int id : *it)
        if (rects_[id].intersects(r)) {
          hit = true;
          return;
        }
    });
    return hit;
  }

 private:
  template <typename F>
  static void forCells(const QRectF& r, F f) {
    const qint64 x0 = qint64(std::floor(r.left() / kCell)), x1 = qint64(std::floor(r.right() / kCell));
    const qint64 y0 = qint64(std::floor(r.top() / kCell)), y1 = qint64(std::floor(r.bottom() / kCell));
    for (qint64 x = x0; x <= x1; ++x)
      for (qint64 y = y0; y <= y1; ++y) f((x << 32) ^ (y & 0xffffffff));
  }
  QVector<QRectF> rects_;
  QHash<qint64, QVector<int>> cells_;
};

// A route flattened once, for points by length along it (QPainterPath::pointAtPercent measures
// the whole curve again on every call).
class Polyline {
 public:
  explicit Polyline(const QPainterPath& path) {
    for (const QPolygonF& sub : path.toSubpathPolygons()) points_ += sub;
    lengths_.reserve(points_.size());
    double total = 0;
    for (int i = 0; i < points_.size(); ++i) {
      if (i > 0) total += QLineF(points_[i - 1], points_[i]).length();
      lengths_ << total;
    }
  }
  // The point at fraction `t` of the length and the direction of the line there.
  QLineF at(double t) const {
    if (points_.size() < 2) return QLineF(points_.value(0), points_.value(0));
    const double want = t * lengths_.back();
    const int i = std::clamp(int(std::lower_bound(lengths_.begin(), lengths_.end(), want) - lengths_.begin()), 1,
                             int(points_.size()) - 1);
    const double span = lengths_[i] - lengths_[i - 1];
    const QLineF segment(points_[i - 1], points_[i]);
    const QPointF p = segment.pointAt(span > 0 ? (want - lengths_[i - 1]) / span : 0);
    return QLineF(p, p + (segment.p2() - segment.p1()));
  }

 private:
  QPolygonF points_;
  QVector<double> lengths_;
};

// The label spots at fraction `t` of the route: beside a steep stretch of line (right, then
// left), above or below a flat one.
std::array<QRectF, 2> spotsAt(const Polyline& route, double t, const QSizeF& size) {
  const QLineF tangent = route.at(t);
  const QPointF at = tangent.p1();
  const double w = size.width(), h = size.height();
  if (std::abs(tangent.dy()) >= std::abs(tangent.dx()) * 0.5)
    return {QRectF(at.x() + kGap, at.y() - h / 2, w, h), QRectF(at.x() - kGap - w, at.y() - h / 2, w, h)};
  return {QRectF(at.x() - w / 2, at.y() - kGap - h, w, h), QRectF(at.x() - w / 2, at.y() + kGap, w, h)};
}

}  // namespace

QSizeF edgeLabelSize(const QString& text) { return QSizeF(text.size() * kCharAdvance + 4, kHeight); }

QVector<QRectF> placeEdgeLabels(const QVector<EdgeLabelRequest>& requests, const QVector<QRectF>& obstacles,
                                const QRectF& area, const QVector<QRectF>& avoid) {
  QVector<QRectF> placed(requests.size());
  RectIndex taken, borders;
  for (const QRectF& r : obstacles) taken.insert(r);
  for (const QRectF& r : avoid) borders.insert(r);
  QSet<QString> labelled;  // key + text of each value already labelled
  for (int i = 0; i < requests.size(); ++i) {
    const auto& req = requests[i];
    if (req.text.isEmpty() || req.path.isEmpty()) continue;
    const QString said = req.key.isEmpty() ? QString() : req.key + QChar(0x1f) + req.text;
    if (!said.isEmpty() && labelled.contains(said)) continue;
    const QSizeF size = edgeLabelSize(req.text);
    // Spots are computed on first use: most labels take the first one.
    std::array<std::array<QRectF, 2>, kAlong.size()> spots;
    std::size_t computed = 0;
    std::optional<Polyline> route;
    auto spotsFor = [&](std::size_t k) -> const std::array<QRectF, 2>& {
      if (!route) route.emplace(req.path);
      for (; computed <= k; ++computed) spots[computed] = spotsAt(*route, kAlong[computed], size);
      return spots[k];
    };
    auto fits = [&](const QRectF& spot) { return (!area.isValid() || area.contains(spot)) && !taken.hits(spot); };
    for (bool strict : {true, false}) {
      if (!strict && avoid.isEmpty()) break;
      for (std::size_t k = 0; k < kAlong.size() && placed[i].isNull(); ++k)
        for (const QRectF& spot : spotsFor(k))
          if ((!strict || !borders.hits(spot)) && fits(spot)) {
            placed[i] = spot;
            break;
          }
      if (!placed[i].isNull()) break;
    }
    if (placed[i].isNull()) continue;
    taken.insert(placed[i]);
    if (!said.isEmpty()) labelled.insert(said);
  }
  return placed;
}

QVector<QRectF> edgeLabelObstacles(const core::layout::Diagram& d) {
  QVector<QRectF> out;
  out.reserve(d.groups.size() + d.nodes.size() + d.terminals.size());
  for (const auto& g : d.groups) {
    if (g.expanded)
      out << QRectF(g.rect.left(), g.rect.top(), g.rect.width(), core::layout::kTitleHeight)
                 .adjusted(-kTitleClearance, -kTitleClearance, kTitleClearance, kTitleClearance);
    else if (g.label.isEmpty()) out << g.rect;
    else out << g.rect.united(g.rect.translated(6, 6));  // the stacked cards of a folded repeat
  }
  for (const auto& n : d.nodes) out << n.rect;
  for (const auto& t : d.terminals) out << t.rect;
  return out;
}

QVector<QRectF> frameBorders(const core::layout::Diagram& d) {
  QVector<QRectF> out;
  for (const auto& g : d.groups) {
    if (!g.expanded) continue;
    const QRectF r = g.rect;
    out << QRectF(r.left() - 0.5, r.top() - 0.5, r.width() + 1, 1)
        << QRectF(r.left() - 0.5, r.bottom() - 0.5, r.width() + 1, 1)
        << QRectF(r.left() - 0.5, r.top() - 0.5, 1, r.height() + 1)
        << QRectF(r.right() - 0.5, r.top() - 0.5, 1, r.height() + 1);
  }
  return out;
}

QVector<QRectF> placeDiagramEdgeLabels(const core::layout::Diagram& d, const core::model::GraphView& view,
                                       const QVector<QPainterPath>& paths) {
  QVector<EdgeLabelRequest> requests(d.edges.size());
  for (int i = 0; i < d.edges.size() && i < paths.size(); ++i) {
    const int e = d.edges[i].edge;
    if (e < 0 || e >= view.edges.size()) continue;
    const auto& ve = view.edges[e];
    requests[i].path = paths[i];
    requests[i].text = core::layout::routeLabel(d.edges[i], view);
    // One value leaving one port: graph inputs have no node, their value name tells them apart.
    // Each stub carries its own note.
    requests[i].key = d.edges[i].stub ? QStringLiteral("stub %1").arg(i)
                      : ve.from == core::model::kNoNode ? QStringLiteral("input ") + ve.value
                                                       : QStringLiteral("%1:%2").arg(ve.from).arg(ve.fromPort);
  }
  return placeEdgeLabels(requests, edgeLabelObstacles(d), d.bounds.adjusted(-8, -8, 8, 8), frameBorders(d));
}

}  // namespace graft::ui::canvas
