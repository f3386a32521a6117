#pragma once
// A laid-out diagram of a GraphView: absolute rectangles for visible op nodes and module groups,
// and edge splines. Plain data (Qt Core only) shared by the canvas, exporters and graft-cli.
#include "core/model/diagnostic.h"
#include "core/model/ids.h"

#include <QtCore/QMetaType>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QPointF>
#include <QtCore/QRectF>
#include <QtCore/QHash>
#include <QtCore/QSet>
#include <QtCore/QStringList>
#include <QtCore/QVector>

namespace graft::core::layout {

struct DiagramNode {
  model::NodeId id = model::kNoNode;
  QRectF rect;
};

struct DiagramGroup {
  int group = 0;          // index into GraphView::groups
  QRectF rect;            // the frame (expanded) or the box (collapsed)
  bool expanded = false;
  int depth = 0;          // root is 0
  // A folded repeat: this first module stands for `repeat` siblings, drawn as one box with this
  // label ("encoder.layer.0–11 ×12"); 1 and empty otherwise.
  int repeat = 1;
  QStringList label;
};

struct DiagramEdge {
  int edge = -1;               // index into GraphView::edges (the first one this route stands for)
  int count = 1;               // how many view edges share this route (edges into a collapsed box)
  QVector<QPointF> points;     // cubic Bezier: p0, then (c1, c2, p) triples
  bool arrow = false;
  QPointF arrowTip;            // where the arrowhead points, when `arrow`
  // The route starts (ends) at a port on its module's frame: the part inside the module of an
  // edge coming from (going to) outside it.
  bool fromFrame = false, toFrame = false;
  // A long route of a value many nodes read, cut to a short stub (edge_stubs.h): at a reader
  // (`stub`, pointing into it) or once at the source (`stub` and `atSource`). `note` is the text
  // it carries: the source at a reader ("from h.3 add"), the readers at the source.
  bool stub = false, atSource = false;
  QString note;
};

// A graph input (top of the diagram) or output (bottom): `port` indexes GraphView::graphInputs
// or graphOutputs.
struct DiagramTerminal {
  bool input = true;
  int port = 0;
  QRectF rect;
};

struct Diagram {
  QVector<DiagramNode> nodes;
  QVector<DiagramTerminal> terminals;
  QVector<DiagramGroup> groups;  // parents before children (paint order)
  QVector<DiagramEdge> edges;
  QRectF bounds;
  double layoutMs = 0;           // time spent in this request
  double graphvizMs = 0;         // of which in the layout worker, building and laying out graphs
  QVector<int> relaid;           // groups whose layout ran in this request (the rest came from cache)
  int dotRuns = 0;               // of these, the ones Graphviz laid out (the rest: memo, column, layered)
  QVector<int> layered;          // groups too big for dot, laid out by Graft's layered layout
  bool cancelled = false;
  QString error;                 // set when the layout failed (the job boundary caught it)
  QStringList fallbacks;         // module paths Graphviz failed on, drawn by the layered layout
  model::Diagnostics diagnostics() const {
    model::Diagnostics out;
    if (!error.isEmpty())
      out.push_back(model::Diagnostic::error(QStringLiteral("layout"), error,
                                             QStringLiteral("the diagram shows the last layout")));
    for (const QString& path : fallbacks)
      out.push_back(model::Diagnostic::warning(
          QStringLiteral("layout"),
          QStringLiteral("Graphviz failed on %1; Graft's own layered layout draws it")
              .arg(path.isEmpty() ? QStringLiteral("the top level") : path),
          QStringLiteral("the rest of the diagram is laid out as usual")));
    return out;
  }
};

// Which groups are expanded; the root (0) always is.
using Expansion = QSet<int>;

// Repeated sibling modules drawn as one collapsed box: each folded module → the first module of
// its repeat, which stands for them all.
using Folds = QHash<int, int>;

}  // namespace graft::core::layout
Q_DECLARE_METATYPE(graft::core::layout::Diagram)
