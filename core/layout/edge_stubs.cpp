#include "core/layout/edge_stubs.h"

#include "core/layout/labels.h"

#include <QtCore/QHash>
#include <cmath>

namespace graft::core::layout {

namespace {

// One value: the node and port that make it, or the graph input it is.
QString valueKey(const model::ViewEdge& e) {
  return e.from == model::kNoNode ? QStringLiteral("input %1").arg(e.fromPort)
                                  : QStringLiteral("%1:%2").arg(e.from).arg(e.fromPort);
}

QPointF routeEnd(const DiagramEdge& r) { return r.arrow ? r.arrowTip : r.points.back(); }

double span(const DiagramEdge& r) { return std::abs(routeEnd(r).y() - r.points.front().y()); }

QVector<QPointF> straight(QPointF from, QPointF to) { return {from, from, to, to}; }

}  // namespace

QString stubSourceName(const model::ViewEdge& edge, const model::GraphView& view) {
  if (edge.from == model::kNoNode) {
    const QString name = edge.fromPort < view.graphInputs.size() ? view.graphInputs[edge.fromPort].name : edge.value;
    return QStringLiteral("input ") + name;
  }
  const auto* node = view.node(edge.from);
  if (!node) return edge.value;
  return node->modulePath.isEmpty() ? node->op : node->modulePath + QLatin1Char(' ') + node->op;
}

void stubLongEdges(Diagram& d, const model::GraphView& view) {
  QHash<QString, QVector<int>> farRoutes;  // value -> its routes longer than kStubSpan
  for (int i = 0; i < d.edges.size(); ++i) {
    const auto& r = d.edges[i];
    if (r.points.size() < 4 || r.edge < 0 || r.edge >= view.edges.size()) continue;
    if (span(r) > kStubSpan) farRoutes[valueKey(view.edges[r.edge])] << i;
  }
  QVector<DiagramEdge> sourceStubs;
  for (auto it = farRoutes.cbegin(); it != farRoutes.cend(); ++it) {
    const QVector<int>& routes = it.value();
    if (routes.size() < kStubReaders) continue;
    const auto& ve = view.edges[d.edges[routes.front()].edge];
    const QString from = QStringLiteral("from ") + stubSourceName(ve, view);
    int readers = 0;
    for (int i : routes) readers += d.edges[i].count;
    DiagramEdge atSource = d.edges[routes.front()];
    const QPointF start = atSource.points.front();
    atSource.points = straight(start, start + QPointF(0, kStubLength));
    atSource.arrow = false;
    atSource.stub = atSource.atSource = true;
    atSource.toFrame = false;
    atSource.note = QStringLiteral("to %1 readers further down").arg(readers);
    sourceStubs << atSource;
    for (int i : routes) {
      DiagramEdge& r = d.edges[i];
      const QPointF last = r.points.back();
      // Straight into the reader, in the direction the route arrived from.
      const QPointF before = r.points[r.points.size() - 2];
      QPointF dir = last - before;
      const double len = std::hypot(dir.x(), dir.y());
      dir = len < 1e-6 ? QPointF(0, 1) : dir / len;
      r.points = straight(last - dir * kStubLength, last);
      r.stub = true;
      r.fromFrame = false;
      r.note = from;
    }
  }
  d.edges += sourceStubs;
}

QString routeLabel(const DiagramEdge& route, const model::GraphView& view) {
  if (route.stub) return route.note;
  return route.edge >= 0 && route.edge < view.edges.size() ? edgeLabel(view.edges[route.edge]) : QString();
}

}  // namespace graft::core::layout
