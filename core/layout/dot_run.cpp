#include "core/layout/dot_run.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <csignal>
#include <stdexcept>
#include <unistd.h>

namespace graft::core::layout {

namespace {
constexpr double kPointsPerInch = 72.0;
QByteArray num(double v) { return QByteArray::number(v, 'f', 4); }
char* str(const char* s) { return const_cast<char*>(s); }
}  // namespace

DotResult runDot(GVC_s* context, const DotJob& job) {
  switch (job.fault) {
    case DotJob::Fault::Crash: std::raise(SIGSEGV); break;
    case DotJob::Fault::Hang:
      for (;;) ::pause();
    case DotJob::Fault::Throw: throw std::runtime_error("test fault: an exception in the layout worker");
    case DotJob::Fault::None: break;
  }
  DotResult r;
  Agraph_t* g = agopen(str("g"), Agdirected, nullptr);
  for (const auto& [name, value] : job.attributes) agsafeset(g, str(name.constData()), str(value.constData()), str(""));
  agattr(g, AGNODE, str("shape"), str("box"));
  agattr(g, AGNODE, str("fixedsize"), str("true"));
  agattr(g, AGNODE, str("label"), str(""));
  Agsym_t* width = agattr(g, AGNODE, str("width"), str("1"));
  Agsym_t* height = agattr(g, AGNODE, str("height"), str("0.5"));
  QVector<Agraph_t*> ranks;
  for (const auto& [name, rank] : job.ranks) {
    Agraph_t* sub = agsubg(g, str(name.constData()), 1);
    agsafeset(sub, str("rank"), str(rank.constData()), str(""));
    ranks << sub;
  }
  QVector<Agnode_t*> nodes;
  nodes.reserve(job.nodes.size());
  for (const auto& n : job.nodes) {
    Agnode_t* a = agnode(g, str(n.name.constData()), 1);
    agxset(a, width, num(n.size.width() / kPointsPerInch).data());
    agxset(a, height, num(n.size.height() / kPointsPerInch).data());
    if (n.rank >= 0) agsubnode(ranks[n.rank], a, 1);
    nodes << a;
  }
  QVector<Agedge_t*> edges;
  edges.reserve(job.edges.size());
  for (const auto& [t, h] : job.edges) edges << agedge(g, nodes[t], nodes[h], nullptr, 1);
  if (gvLayout(context, g, "dot") != 0) {
    agclose(g);
    return r;
  }
  r.laidOut = true;
  const boxf bb = GD_bb(g);
  r.bounds = QRectF(QPointF(bb.LL.x, bb.LL.y), QPointF(bb.UR.x, bb.UR.y));
  r.centres.reserve(nodes.size());
  for (Agnode_t* a : nodes) r.centres << QPointF(ND_coord(a).x, ND_coord(a).y);
  r.splines.resize(edges.size());
  for (qsizetype i = 0; i < edges.size(); ++i) {
    const splines* spl = ED_spl(edges[i]);
    if (!spl) continue;
    DotSpline& out = r.splines[i];
    for (int b = 0; b < spl->size; ++b) {
      const bezier& bz = spl->list[b];
      for (int k = 0; k < bz.size; ++k) out.points << QPointF(bz.list[k].x, bz.list[k].y);
      if (bz.eflag) {
        out.arrow = true;
        out.arrowTip = QPointF(bz.ep.x, bz.ep.y);
      }
    }
  }
  gvFreeLayout(context, g);
  agclose(g);
  return r;
}

}  // namespace graft::core::layout
