#include "core/layout/layout_engine.h"

#include "core/layout/forked_work.h"
#include "core/layout/graphviz_guard.h"
#include "core/layout/group_layout.h"
#include "core/layout/labels.h"

#include <QtCore/QElapsedTimer>
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <algorithm>
#include <csignal>
#include <mutex>
#include <optional>

namespace graft::core::layout {

using model::NodeId;

namespace {
// Which producer a port stands for: a node id, or a graph input as -1 - port. Edges of one
// producer cross a frame through one port and fan out on the far side.
qint64 tailKey(const model::ViewEdge& e) { return e.from == model::kNoNode ? -1 - e.fromPort : qint64(e.from); }
}  // namespace

namespace {
// Graphviz keeps global state: every engine in the process (the main canvas and both panes of a
// diff view each own a layout thread) takes its turn through this lock.
std::mutex& graphvizLock() {
  static std::mutex lock;
  return lock;
}
}  // namespace

struct LayoutEngine::Gv {
  GVC_t* context = nullptr;
  Gv() {
    std::lock_guard hold(graphvizLock());
    context = gvContext();
  }
  ~Gv() {
    std::lock_guard hold(graphvizLock());
    gvFreeContext(context);
  }
};

namespace {
constexpr double kPointsPerInch = 72.0;
constexpr double kPortSize = 4.0;  // the invisible node a module's frame crossing starts or ends at
QByteArray num(double v) { return QByteArray::number(v, 'f', 4); }
}  // namespace

LayoutEngine::LayoutEngine(LayoutOptions options) : options_(options), gv_(std::make_unique<Gv>()) {}

LayoutEngine::~LayoutEngine() { qDeleteAll(cache_); }

void LayoutEngine::setView(std::shared_ptr<const model::GraphView> view) {
  view_ = std::move(view);
  qDeleteAll(cache_);
  cache_.clear();
  prepare();
}

void LayoutEngine::prepare() {
  const auto& groups = view_->groups;
  depth_ = QVector<int>(groups.size(), 0);
  for (int g = 1; g < groups.size(); ++g) {
    int d = 0;
    for (int p = groups[g].parent; p >= 0; p = groups[p].parent) ++d;
    depth_[g] = d;
  }
  edgesAt_ = QVector<QVector<int>>(groups.size());
  entering_ = QVector<QVector<int>>(groups.size());
  leaving_ = QVector<QVector<int>>(groups.size());
  for (int i = 0; i < view_->edges.size(); ++i) {
    const auto& e = view_->edges[i];
    const auto* a = view_->node(e.from);
    const auto* b = view_->node(e.to);
    if (!a && !b) continue;  // an input returned as it is: nothing to draw between the terminals
    int x = 0;  // where the edge is routed: the lowest group holding both ends (terminals: the root)
    if (a && b) {
      x = a->group;
      int y = b->group;
      while (depth_[x] > depth_[y]) x = groups[x].parent;
      while (depth_[y] > depth_[x]) y = groups[y].parent;
      while (x != y) { x = groups[x].parent; y = groups[y].parent; }
    }
    edgesAt_[x].push_back(i);
    if (b)
      for (int p = b->group; p != x; p = groups[p].parent) entering_[p].push_back(i);
    if (a)
      for (int p = a->group; p != x; p = groups[p].parent) leaving_[p].push_back(i);
  }
}

Expansion LayoutEngine::expandAll() const {
  Expansion e;
  for (int g = 0; g < view_->groups.size(); ++g) e.insert(g);
  return e;
}

Expansion LayoutEngine::expandToDepth(int depth) const {
  Expansion e{0};
  for (int g = 0; g < view_->groups.size(); ++g)
    if (depth_[g] <= depth) e.insert(g);
  return e;
}

int LayoutEngine::itemIn(int group, NodeId node) const {
  if (!view_->node(node)) return -1;  // a terminal: not inside any group
  int g = view_->node(node)->group;
  if (g == group) return -1;
  while (view_->groups[g].parent != group) g = view_->groups[g].parent;
  return folds_.value(g, g);  // a folded module is drawn as the first of its repeat
}

QVector<int> LayoutEngine::signature(int group, const Expansion& expanded) const {
  QVector<int> sig;
  for (int c : view_->groups[group].children) {
    if (folds_.contains(c)) sig << -1 - c;                     // hidden in a fold
    else if (foldedBy_.contains(c)) sig << -1000000 - c;       // stands for a fold
    else if (expanded.contains(c)) {
      sig << c;
      sig << signature(c, expanded);
    }
  }
  return sig;
}

Diagram LayoutEngine::layout(const Expansion& expandedIn, const std::atomic<bool>* cancel,
                             const std::function<void(int, int)>& progress, const Folds& folds) {
  QElapsedTimer timer;
  timer.start();
  Diagram d;
  if (!view_ || view_->groups.isEmpty()) return d;
  Expansion expanded = expandedIn;
  expanded.insert(0);
  std::lock_guard hold(graphvizLock());
  // A folded repeat is one collapsed box: none of its modules is open.
  folds_ = folds;
  foldedBy_.clear();
  for (auto it = folds_.constBegin(); it != folds_.constEnd(); ++it) {
    foldedBy_[it.value()].push_back(it.key());
    expanded.remove(it.key());
    expanded.remove(it.value());
  }
  for (auto& hidden : foldedBy_) std::sort(hidden.begin(), hidden.end());  // sibling order: the last names the range
  // The visible expanded groups, children before parents.
  QVector<int> order;
  std::function<void(int)> visit = [&](int g) {
    for (int c : view_->groups[g].children)
      if (expanded.contains(c)) visit(c);
    order << g;
  };
  visit(0);
  QVector<int> stale;  // groups whose cached layout is missing or was made for another expansion
  for (int g : order)
    if (const GroupLayout* cached = cache_.value(g); !cached || cached->signature != signature(g, expanded)) stale << g;
  int done = int(order.size() - stale.size());
  layoutGroups(stale, expanded, cancel, [&] { if (progress) progress(++done, int(order.size())); }, d);
  if (d.cancelled) return d;
  for (int g : order)
    if (cache_[g]->fallback) d.fallbacks << view_->groups[g].path;
  compose(0, expanded, {0, 0}, 0, d);
  d.bounds = QRectF(QPointF(0, 0), cache_[0]->size);
  d.layoutMs = double(timer.nsecsElapsed()) / 1e6;
  return d;
}

void LayoutEngine::store(int group, GroupLayout layout) {
  GroupLayout*& cached = cache_[group];
  delete cached;
  cached = new GroupLayout(std::move(layout));
}

// Stale groups come in bottom-up order, each needing its children's sizes. One child process
// lays them all out and sends each back as it finishes; when it dies, the group it was on is
// drawn as a column here and a new child goes on from the next.
void LayoutEngine::layoutGroups(const QVector<int>& stale, const Expansion& expanded, const std::atomic<bool>* cancel,
                                const std::function<void()>& groupDone, Diagram& d) {
  const auto fresh = [&](int g, Graphviz how) {
    GroupLayout gl;
    gl.signature = signature(g, expanded);
    layoutGroup(g, expanded, gl, how);
    return gl;
  };
  qsizetype next = 0;  // stale[next] is the first group without its new layout here
  while (next < stale.size()) {
    if (cancel && cancel->load()) {
      d.cancelled = true;
      return;
    }
    const qsizetype first = next;
    const ForkedEnd end = runForked(
        [&](const SendResult& send) {
          for (qsizetype i = first; i < stale.size(); ++i) {
            GroupLayout gl = fresh(stale[i], Graphviz::Plain);
            send(toBytes(gl));
            store(stale[i], std::move(gl));  // in the child's own cache: its parent group needs the size
          }
        },
        [&](const QByteArray& bytes) {
          store(stale[next], groupLayoutFromBytes(bytes));
          d.relaid << stale[next++];
          groupDone();
        },
        cancel);
    if (end.kind == ForkedEnd::Cancelled) {
      d.cancelled = true;
      return;
    }
    if (end.kind == ForkedEnd::Unavailable) {
      // No child process (out of memory or processes): lay out here, under the signal guard.
      for (; next < stale.size(); ++next) {
        store(stale[next], fresh(stale[next], Graphviz::Guarded));
        d.relaid << stale[next];
        groupDone();
      }
      return;
    }
    if (next < stale.size()) {  // the child died laying out stale[next]
      store(stale[next], fresh(stale[next], Graphviz::Skipped));
      d.relaid << stale[next++];
      groupDone();
    }
  }
}

void LayoutEngine::layoutGroup(int group, const Expansion& expanded, GroupLayout& out, Graphviz how) {
  const auto& vg = view_->groups[group];
  Agraph_t* g = agopen(const_cast<char*>("g"), Agdirected, nullptr);
  agsafeset(g, const_cast<char*>("rankdir"), const_cast<char*>("TB"), const_cast<char*>(""));
  agsafeset(g, const_cast<char*>("nslimit"), num(options_.nslimit).data(), const_cast<char*>(""));
  agsafeset(g, const_cast<char*>("nslimit1"), num(options_.nslimit1).data(), const_cast<char*>(""));
  agsafeset(g, const_cast<char*>("mclimit"), num(options_.mclimit).data(), const_cast<char*>(""));
  agsafeset(g, const_cast<char*>("ranksep"), num(options_.ranksep).data(), const_cast<char*>(""));
  agsafeset(g, const_cast<char*>("nodesep"), num(options_.nodesep).data(), const_cast<char*>(""));
  Agsym_t* shape = agattr(g, AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
  agattr(g, AGNODE, const_cast<char*>("fixedsize"), const_cast<char*>("true"));
  agattr(g, AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
  Agsym_t* width = agattr(g, AGNODE, const_cast<char*>("width"), const_cast<char*>("1"));
  Agsym_t* height = agattr(g, AGNODE, const_cast<char*>("height"), const_cast<char*>("0.5"));
  Q_UNUSED(shape);

  QHash<NodeId, Agnode_t*> nodeOf;
  QHash<int, Agnode_t*> boxOf;
  QVector<QPair<Agnode_t*, QSizeF>> sized;
  auto addNode = [&](const QByteArray& name, QSizeF size) {
    Agnode_t* n = agnode(g, const_cast<char*>(name.constData()), 1);
    agxset(n, width, num(size.width() / kPointsPerInch).data());
    agxset(n, height, num(size.height() / kPointsPerInch).data());
    sized.push_back({n, size});
    return n;
  };
  for (NodeId id : vg.nodes) nodeOf.insert(id, addNode("n" + QByteArray::number(qulonglong(id)), nodeSize(*view_->node(id))));
  for (int c : vg.children) {
    if (folds_.contains(c)) continue;
    const QSizeF s = expanded.contains(c)     ? cache_.value(c)->size
                     : foldedBy_.contains(c) ? labelBoxSize(repeatLabel(c))
                                             : collapsedGroupSize(view_->groups[c]);
    boxOf.insert(c, addNode("g" + QByteArray::number(c), s));
  }
  // The root shows where data enters and leaves: inputs on the top rank, outputs on the bottom.
  QHash<int, Agnode_t*> inputOf, outputOf;
  if (group == 0) {
    Agraph_t* top = agsubg(g, const_cast<char*>("inputs"), 1);
    Agraph_t* bottom = agsubg(g, const_cast<char*>("outputs"), 1);
    agsafeset(top, const_cast<char*>("rank"), const_cast<char*>("source"), const_cast<char*>(""));
    agsafeset(bottom, const_cast<char*>("rank"), const_cast<char*>("sink"), const_cast<char*>(""));
    for (int i = 0; i < view_->graphInputs.size(); ++i) {
      Agnode_t* n = addNode("i" + QByteArray::number(i), terminalSize(*view_, true, i));
      agsubnode(top, n, 1);
      inputOf.insert(i, n);
    }
    for (int i = 0; i < view_->graphOutputs.size(); ++i) {
      Agnode_t* n = addNode("o" + QByteArray::number(i), terminalSize(*view_, false, i));
      agsubnode(bottom, n, 1);
      outputOf.insert(i, n);
    }
    // Inputs and outputs left to right in their order: dot puts a flat edge's tail left of its
    // head. These edges only order; no route is drawn for them.
    for (const auto* ports : {&inputOf, &outputOf})
      for (int i = 1; i < ports->size(); ++i) agedge(g, ports->value(i - 1), ports->value(i), nullptr, 1);
  }
  // Ports: one small invisible node per outside end, on the top rank for edges coming in and
  // the bottom rank for edges going out.
  QHash<qint64, Agnode_t*> portIn, portOut;
  const auto portsFor = [&](const QVector<int>& edges, bool in) {
    if (edges.isEmpty()) return;
    Agraph_t* rank = agsubg(g, const_cast<char*>(in ? "ports_in" : "ports_out"), 1);
    agsafeset(rank, const_cast<char*>("rank"), const_cast<char*>(in ? "source" : "sink"), const_cast<char*>(""));
    auto& ports = in ? portIn : portOut;
    for (int i : edges) {
      const qint64 key = tailKey(view_->edges[i]);
      if (ports.contains(key)) continue;
      Agnode_t* n = addNode((in ? "pi" : "po") + QByteArray::number(key < 0 ? 1000000000 - key : key), {kPortSize, kPortSize});
      agsubnode(rank, n, 1);
      ports.insert(key, n);
    }
  };
  portsFor(entering_[group], true);
  portsFor(leaving_[group], false);
  // One Graphviz edge per pair of items; it stands for every view edge between them.
  QHash<QPair<Agnode_t*, Agnode_t*>, int> routeOf;
  QVector<QPair<Agedge_t*, DiagramEdge>> routes;
  QVector<QPair<Agnode_t*, Agnode_t*>> routeEnds;  // tail, head: the fallback draws straight lines
  QVector<QPair<int, int>> endChildren;
  const auto addRoute = [&](int i, Agnode_t* t, Agnode_t* h, int tailChild, int headChild, bool fromFrame, bool toFrame) {
    if (!t || !h || t == h) return;
    auto it = routeOf.find({t, h});
    if (it != routeOf.end()) {
      ++routes[*it].second.count;
      return;
    }
    routeOf.insert({t, h}, int(routes.size()));
    DiagramEdge de;
    de.edge = i;
    de.fromFrame = fromFrame;
    de.toFrame = toFrame;
    routes.push_back({agedge(g, t, h, nullptr, 1), de});
    routeEnds.push_back({t, h});
    endChildren.push_back({tailChild, headChild});
  };
  for (int i : entering_[group]) {
    const auto& e = view_->edges[i];
    const int ti = itemIn(group, e.to);
    addRoute(i, portIn.value(tailKey(e)), ti < 0 ? nodeOf.value(e.to) : boxOf.value(ti), -1, ti, true, false);
  }
  for (int i : leaving_[group]) {
    const auto& e = view_->edges[i];
    const int fi = itemIn(group, e.from);
    addRoute(i, fi < 0 ? nodeOf.value(e.from) : boxOf.value(fi), portOut.value(tailKey(e)), fi, -1, false, true);
  }
  for (int i : edgesAt_[group]) {
    const auto& e = view_->edges[i];
    const int fi = itemIn(group, e.from), ti = itemIn(group, e.to);
    Agnode_t* t = e.from == model::kNoNode ? inputOf.value(e.fromPort) : fi < 0 ? nodeOf.value(e.from) : boxOf.value(fi);
    Agnode_t* h = e.to == model::kNoNode ? outputOf.value(e.toPort) : ti < 0 ? nodeOf.value(e.to) : boxOf.value(ti);
    addRoute(i, t, h, e.from == model::kNoNode ? -1 : fi, e.to == model::kNoNode ? -1 : ti, false, false);
  }

  if (sized.isEmpty()) {
    out.size = {120, kTitleHeight + 2 * kPad};
    agclose(g);
    return;
  }
  // GRAFT_TEST_LAYOUT_CRASH=<module path>: the test of the crash handling makes Graphviz "crash" there.
  const bool crashHere = !crashAt_.isEmpty() && vg.path == crashAt_;
  bool laidOut = false;
  switch (how) {
    case Graphviz::Plain:
      if (crashHere) std::raise(SIGSEGV);
      laidOut = gvLayout(gv_->context, g, "dot") == 0;
      break;
    case Graphviz::Guarded: laidOut = layoutWithoutCrashing(gv_->context, g, crashHere); break;
    case Graphviz::Skipped: break;
  }
  QHash<Agnode_t*, QSizeF> sizeOf;
  for (const auto& [n, s] : sized) sizeOf.insert(n, s);
  // Where each Graphviz node's centre is, in this group's coordinates, and the layout's extent.
  std::function<QPointF(Agnode_t*)> centre;
  QSizeF extent;
  QHash<Agnode_t*, QPointF> column;  // the fallback: one column, inputs and ports in first
  boxf bb{};
  if (laidOut) {
    bb = GD_bb(g);
    const double ox = -bb.LL.x + kPad, oy = kTitleHeight + kPad;
    centre = [=](Agnode_t* n) { return QPointF(ND_coord(n).x + ox, (bb.UR.y - ND_coord(n).y) + oy); };
    extent = {bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};
  } else {
    out.fallback = true;
    QVector<QPair<Agnode_t*, QSizeF>> ordered;
    auto isIn = [&](Agnode_t* n) { return inputOf.values().contains(n) || portIn.values().contains(n); };
    auto isOut = [&](Agnode_t* n) { return outputOf.values().contains(n) || portOut.values().contains(n); };
    for (const auto& ns : sized) if (isIn(ns.first)) ordered << ns;
    for (const auto& ns : sized) if (!isIn(ns.first) && !isOut(ns.first)) ordered << ns;
    for (const auto& ns : sized) if (isOut(ns.first)) ordered << ns;
    double widest = 0, y = kTitleHeight + kPad;
    for (const auto& [n, sz] : ordered) widest = std::max(widest, sz.width());
    for (const auto& [n, sz] : ordered) {
      column.insert(n, QPointF(kPad + widest / 2, y + sz.height() / 2));
      y += sz.height() + options_.ranksep * kPointsPerInch;
    }
    centre = [&column](Agnode_t* n) { return column.value(n); };
    extent = {widest, y - kTitleHeight - kPad};
  }
  auto rectOf = [&](Agnode_t* n, QSizeF s) {
    const QPointF c = centre(n);
    return QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height());
  };
  for (NodeId id : vg.nodes) out.nodes.push_back({id, rectOf(nodeOf[id], sizeOf[nodeOf[id]])});
  for (int c : vg.children)
    if (boxOf.contains(c)) out.children.push_back({c, rectOf(boxOf[c], sizeOf[boxOf[c]])});
  for (auto it = inputOf.begin(); it != inputOf.end(); ++it) out.terminals.push_back({true, it.key(), rectOf(*it, sizeOf[*it])});
  for (auto it = outputOf.begin(); it != outputOf.end(); ++it) out.terminals.push_back({false, it.key(), rectOf(*it, sizeOf[*it])});
  for (auto it = portIn.begin(); it != portIn.end(); ++it) out.portsIn.insert(it.key(), centre(*it));
  for (auto it = portOut.begin(); it != portOut.end(); ++it) out.portsOut.insert(it.key(), centre(*it));
  for (int r = 0; r < routes.size(); ++r) {
    auto& [e, de] = routes[r];
    if (laidOut) {
      const splines* spl = ED_spl(e);
      if (!spl || spl->size == 0) continue;
      const double ox = -bb.LL.x + kPad, oy = kTitleHeight + kPad;
      auto map = [&](pointf p) { return QPointF(p.x + ox, (bb.UR.y - p.y) + oy); };
      for (int b = 0; b < spl->size; ++b) {
        const bezier& bz = spl->list[b];
        for (int k = 0; k < bz.size; ++k) de.points << map(bz.list[k]);
        if (bz.eflag) {
          de.arrow = true;
          de.arrowTip = map(bz.ep);
        }
      }
    } else {
      // A straight line from the bottom of the tail to the top of the head.
      const auto [t, h] = routeEnds[r];
      const QRectF tr = rectOf(t, sizeOf[t]), hr = rectOf(h, sizeOf[h]);
      const QPointF from(tr.center().x(), tr.bottom()), tip(hr.center().x(), hr.top());
      const QPointF to = tip - QPointF(0, 6);
      de.points << from << from << to << to;
      de.arrow = true;
      de.arrowTip = tip;
    }
    if (de.toFrame && de.arrow) {
      // It goes on outside the frame, where its arrow is drawn: run the line to the port instead.
      const QPointF end = de.points.back();
      de.points << end << de.arrowTip << de.arrowTip;
      de.arrow = false;
    }
    out.edges.push_back(de);
    out.endChildren.push_back(endChildren[r]);
  }
  const double title = groupLabel(vg).front().size() * kCharWidth + 40;
  out.size = {std::max(extent.width() + 2 * kPad, title), extent.height() + kTitleHeight + 2 * kPad};
  // After a crash under the guard Graphviz's records of this graph are not to be trusted: they
  // are left alone.
  if (laidOut) gvFreeLayout(gv_->context, g);
  if (laidOut || how != Graphviz::Guarded) agclose(g);
}

QStringList LayoutEngine::repeatLabel(int first) const {
  const auto& hidden = foldedBy_.value(first);
  return layout::repeatLabel(view_->groups[first], view_->groups[hidden.isEmpty() ? first : hidden.back()],
                             int(hidden.size()) + 1);
}

void LayoutEngine::compose(int group, const Expansion& expanded, QPointF offset, int depth, Diagram& d) const {
  const GroupLayout* gl = cache_.value(group);
  d.groups.push_back({group, QRectF(offset, gl->size), true, depth});
  for (const auto& [id, r] : gl->nodes) d.nodes.push_back({id, r.translated(offset)});
  for (DiagramTerminal t : gl->terminals) {
    t.rect.translate(offset);
    d.terminals.push_back(t);
  }
  for (const auto& [c, r] : gl->children) {
    if (expanded.contains(c)) compose(c, expanded, offset + r.topLeft(), depth + 1, d);
    else if (auto fold = foldedBy_.constFind(c); fold != foldedBy_.constEnd())
      d.groups.push_back({c, r.translated(offset), false, depth + 1, int(fold->size()) + 1, repeatLabel(c)});
    else d.groups.push_back({c, r.translated(offset), false, depth + 1});
  }
  for (int r = 0; r < gl->edges.size(); ++r) {
    DiagramEdge e = gl->edges[r];
    const auto& ve = view_->edges[e.edge];
    // A route into an expanded module continues, straight, to the port its inner part starts
    // from (and one out of a module starts at its port), so the edge reads as one line.
    const auto [tailChild, headChild] = gl->endChildren[r];
    const auto childPort = [&](int child, bool in) -> std::optional<QPointF> {
      if (child < 0 || !expanded.contains(child)) return std::nullopt;
      const GroupLayout* cl = cache_.value(child);
      const auto& ports = in ? cl->portsIn : cl->portsOut;
      auto it = ports.constFind(tailKey(ve));
      if (it == ports.constEnd()) return std::nullopt;
      for (const auto& [c, rect] : gl->children)
        if (c == child) return *it + rect.topLeft();
      return std::nullopt;
    };
    if (auto port = childPort(headChild, true); port && !e.points.isEmpty()) {
      const QPointF end = e.arrow ? e.arrowTip : e.points.back();
      e.points << end << *port << *port;
      e.arrow = false;
    }
    if (auto port = childPort(tailChild, false); port && !e.points.isEmpty()) {
      e.points = QVector<QPointF>{*port, *port, e.points.front()} + e.points;
    }
    for (auto& p : e.points) p += offset;
    e.arrowTip += offset;
    d.edges.push_back(std::move(e));
  }
}

}  // namespace graft::core::layout
