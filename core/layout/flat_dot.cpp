#include "core/layout/flat_dot.h"

#include "core/layout/labels.h"

#include <QtCore/QElapsedTimer>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

namespace graft::core::layout {

namespace {
QByteArray quoted(const QString& s) {
  QString t = s;
  t.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char('"'), QStringLiteral("\\\""));
  return '"' + t.toUtf8() + '"';
}
}  // namespace

QByteArray flatDot(const model::GraphView& view) {
  QByteArray out = "digraph graft {\n  node [shape=box, fontname=\"sans-serif\", fontsize=10];\n";
  for (int i = 0; i < view.graphInputs.size(); ++i)
    out += "  in" + QByteArray::number(i) + " [shape=ellipse, label=" + quoted(view.graphInputs[i].name) + "];\n";
  for (int i = 0; i < view.graphOutputs.size(); ++i)
    out += "  out" + QByteArray::number(i) + " [shape=ellipse, label=" + quoted(QStringLiteral("output %1").arg(i)) +
           "];\n";
  for (const auto& n : view.nodes)
    out += "  n" + QByteArray::number(qulonglong(n.id)) + " [label=" + quoted(nodeLabel(n).join(QLatin1Char('\n'))) +
           ", tooltip=" + quoted(n.modulePath) + "];\n";
  for (const auto& e : view.edges) {
    const QByteArray from =
        e.from == model::kNoNode ? "in" + QByteArray::number(e.fromPort) : "n" + QByteArray::number(qulonglong(e.from));
    const QByteArray to =
        e.to == model::kNoNode ? "out" + QByteArray::number(e.toPort) : "n" + QByteArray::number(qulonglong(e.to));
    out += "  " + from + " -> " + to + " [tooltip=" + quoted(e.type) + "];\n";
  }
  out += "}\n";
  return out;
}

double timeDotLayout(const QByteArray& dot) {
  GVC_t* gvc = gvContext();
  Agraph_t* g = agmemread(dot.constData());
  if (!g) {
    gvFreeContext(gvc);
    return -1;
  }
  QElapsedTimer t;
  t.start();
  const int rc = gvLayout(gvc, g, "dot");
  const double ms = double(t.nsecsElapsed()) / 1e6;
  gvFreeLayout(gvc, g);
  agclose(g);
  gvFreeContext(gvc);
  return rc == 0 ? ms : -1;
}

}  // namespace graft::core::layout
