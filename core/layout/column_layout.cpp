#include "core/layout/column_layout.h"

#include <algorithm>
#include <cmath>

namespace graft::core::layout {

namespace {
constexpr double kArrowLength = 10;  // dot's default arrowhead, in points

// The nodes of `job` in chain order, or empty when its edges are not one path through them all.
QVector<int> chainOrder(const DotJob& job) {
  const qsizetype n = job.nodes.size();
  if (n == 0 || job.edges.size() != n - 1) return {};
  QVector<int> next(n, -1), inDegree(n, 0);
  for (const auto& [tail, head] : job.edges) {
    if (tail < 0 || tail >= n || head < 0 || head >= n || next[tail] != -1) return {};
    next[tail] = head;
    ++inDegree[head];
  }
  const auto first = std::find(inDegree.begin(), inDegree.end(), 0);
  if (first == inDegree.end() || std::count(inDegree.begin(), inDegree.end(), 0) != 1) return {};
  QVector<int> order;
  for (int i = int(first - inDegree.begin()); i != -1 && order.size() <= n; i = next[i]) order << i;
  return order.size() == n ? order : QVector<int>{};
}
}  // namespace

std::optional<DotResult> columnLayout(const DotJob& job, double ranksepPoints) {
  const QVector<int> order = chainOrder(job);
  if (order.isEmpty()) return std::nullopt;
  // Only the ends may carry a rank, and only the one the column gives them anyway.
  for (int k = 0; k < order.size(); ++k) {
    const int rank = job.nodes[order[k]].rank;
    if (rank < 0) continue;
    const QByteArray& want = job.ranks.value(rank).second;
    if (!((want == "source" && k == 0) || (want == "sink" && k == order.size() - 1))) return std::nullopt;
  }
  const double gap = std::round(ranksepPoints);  // dot keeps ranks whole points apart
  double width = 0, height = gap * double(order.size() - 1);
  for (const auto& node : job.nodes) {
    width = std::max(width, node.size.width());
    height += node.size.height();
  }
  DotResult r;
  r.laidOut = true;
  r.bounds = QRectF(0, 0, width, height);
  r.centres.resize(job.nodes.size());
  const double x = width / 2;
  double top = height;
  for (int i : order) {
    const double h = job.nodes[i].size.height();
    r.centres[i] = QPointF(x, top - h / 2);
    top -= h + gap;
  }
  r.splines.resize(job.edges.size());
  for (qsizetype e = 0; e < job.edges.size(); ++e) {
    const auto [tail, head] = job.edges[e];
    const QPointF from(x, r.centres[tail].y() - job.nodes[tail].size.height() / 2);
    const QPointF tip(x, r.centres[head].y() + job.nodes[head].size.height() / 2);
    const QPointF to(x, std::min(from.y(), tip.y() + kArrowLength));
    DotSpline& s = r.splines[e];
    s.points = {from, from + (to - from) / 3, from + (to - from) * 2 / 3, to};
    s.arrow = true;
    s.arrowTip = tip;
  }
  return r;
}

}  // namespace graft::core::layout
