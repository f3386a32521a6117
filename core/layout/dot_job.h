#pragma once
// One group's Graphviz job as plain data: what the layout worker process builds into a `dot`
// graph (node sizes, rank subgraphs, edges, graph attributes) and what it sends back (node
// centres and edge splines, in Graphviz's coordinates). Qt Core only: the worker executable
// links this without the rest of graft_core.
#include <QtCore/QByteArray>
#include <QtCore/QPair>
#include <QtCore/QPointF>
#include <QtCore/QRectF>
#include <QtCore/QString>
#include <QtCore/QVector>

namespace graft::core::layout {

struct DotJob {
  QVector<QPair<QByteArray, QByteArray>> attributes;  // graph attributes (rankdir, nslimit, ...)
  QVector<QPair<QByteArray, QByteArray>> ranks;       // subgraphs: name, rank ("source", "sink")
  struct Node {
    QByteArray name;
    QSizeF size;    // points
    int rank = -1;  // index into `ranks`, or -1
  };
  QVector<Node> nodes;
  QVector<QPair<int, int>> edges;  // tail, head: indices into `nodes`
  // Test hooks: the worker crashes (SIGSEGV), hangs, or throws instead of laying out.
  enum class Fault : qint8 { None, Crash, Hang, Throw };
  Fault fault = Fault::None;
};

struct DotSpline {
  QVector<QPointF> points;  // cubic Bezier: p0, then (c1, c2, p) triples
  bool arrow = false;
  QPointF arrowTip;
};

struct DotResult {
  bool laidOut = false;  // false: Graphviz refused the graph, or `error`
  QString error;         // an exception in the worker, caught there
  QRectF bounds;         // Graphviz's bounding box (y up)
  QVector<QPointF> centres;   // per node of the job
  QVector<DotSpline> splines; // per edge of the job
  double workerMs = 0;        // time the worker spent on the job (the rest is transport)
};

QByteArray toBytes(const DotJob& job);
bool dotJobFromBytes(const QByteArray& bytes, DotJob& job);  // false on malformed bytes
QByteArray toBytes(const DotResult& result);
bool dotResultFromBytes(const QByteArray& bytes, DotResult& result);

}  // namespace graft::core::layout
