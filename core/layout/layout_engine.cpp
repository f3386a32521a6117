#include "core/layout/layout_engine.h"

#include "core/layout/column_layout.h"
#include "core/layout/dot_job.h"
#include "core/layout/edge_stubs.h"
#include "core/layout/group_layout.h"
#include "core/layout/labels.h"
#include "core/layout/layered_layout.h"
#include "core/layout/layout_worker.h"

#include <QtCore/QElapsedTimer>
#include <algorithm>
#include <map>
#include <cerrno>
#include <optional>
#include <poll.h>
#include <thread>
#include <unordered_map>

namespace graft::core::layout {

using model::NodeId;

namespace {
// Which producer a port stands for: a node id, or a graph input as -1 - port. Edges of one
// producer cross a frame through one port and fan out on the far side.
qint64 tailKey(const model::ViewEdge& e) { return e.from == model::kNoNode ? -1 - e.fromPort : qint64(e.from); }

constexpr double kPointsPerInch = 72.0;
constexpr double kPortSize = 4.0;  // the invisible node a module's frame crossing starts or ends at
constexpr qsizetype kMemoEntries = 20000;  // dot results kept; a few KB each
QByteArray num(double v) { return QByteArray::number(v, 'f', 4); }
}  // namespace

// A group's DotJob, and for each of its nodes and edges what it stands for in the group.
struct LayoutEngine::Built {
  DotJob job;
  QByteArray bytes;  // the job as sent to a worker: its key in the memo
  QHash<NodeId, int> nodeOf;  // indices into job.nodes
  QHash<int, int> boxOf, inputOf, outputOf;
  QHash<qint64, int> portIn, portOut;
  struct Route {
    int edge = -1;  // index into job.edges
    DiagramEdge de;
    QPair<int, int> endChildren;
  };
  QVector<Route> routes;
};

LayoutEngine::LayoutEngine(LayoutOptions options) : options_(options) {
  // Left to the engine: GRAFT_LAYOUT_WORKERS=N (a tuning knob), else by the machine's cores.
  if (options_.workers <= 0) options_.workers = qEnvironmentVariableIntValue("GRAFT_LAYOUT_WORKERS");
  if (options_.workers <= 0) options_.workers = std::thread::hardware_concurrency() >= 4 ? 2 : 1;
  workers_.push_back(LayoutWorker::take());
  workers_.front()->ensureStarted();  // now, before a request waits for it
}

LayoutEngine::~LayoutEngine() {
  qDeleteAll(cache_);
  for (auto& w : workers_) LayoutWorker::give(std::move(w));
}

pid_t LayoutEngine::workerPid() const { return workers_.front()->pid(); }

QVector<pid_t> LayoutEngine::workerPids() const {
  QVector<pid_t> pids;
  for (const auto& w : workers_) pids << w->pid();
  return pids;
}

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
  stubLongEdges(d, *view_);
  d.bounds = QRectF(QPointF(0, 0), cache_[0]->size);
  d.layoutMs = double(timer.nsecsElapsed()) / 1e6;
  return d;
}

void LayoutEngine::remember(const QByteArray& job, const DotResult& result) {
  if (dotMemo_.size() >= kMemoEntries) dotMemo_.clear();  // a bound, not an LRU: rarely reached
  dotMemo_.insert(job, result);
}

void LayoutEngine::store(int group, GroupLayout layout) {
  GroupLayout*& cached = cache_[group];
  delete cached;
  cached = new GroupLayout(std::move(layout));
}

// Stale groups come in bottom-up order; a group is ready once its stale children are laid out (it
// needs their sizes). Ready groups go to the engine's workers as jobs, several queued on a worker
// so that it never waits for this thread, and on up to LayoutOptions::workers workers at once
// (sibling modules side by side); this thread waits on all their sockets. A chain is laid out
// here as a column, a group too big for dot by the layered layout, and a job dot has laid out
// before comes from the memo. A group a worker crashed or stalled on is drawn by the layered
// layout here (that worker restarts for its next job), as is every group when no worker can be
// started.
void LayoutEngine::layoutGroups(const QVector<int>& stale, const Expansion& expanded, const std::atomic<bool>* cancel,
                                const std::function<void()>& groupDone, Diagram& d) {
  const QSet<int> staleSet(stale.begin(), stale.end());
  QHash<int, int> waiting;  // stale group -> its stale children not laid out yet
  for (int g : stale)
    for (int c : view_->groups[g].children)
      if (staleSet.contains(c)) ++waiting[g];
  QVector<int> ready;
  for (int g : stale)
    if (!waiting.value(g)) ready << g;

  const auto complete = [&](int g, const Built& b, const LayoutWorker::Outcome* o) {
    const DotResult* result = nullptr;
    if (o) {
      d.graphvizMs += o->result.workerMs;
      if (qEnvironmentVariableIsSet("GRAFT_LAYOUT_VERBOSE") && o->result.workerMs > 200)
        qInfo("layout of %s: %d items, %d edges, %.0f ms", qPrintable(view_->groups[g].path), int(b.job.nodes.size()),
              int(b.job.edges.size()), o->result.workerMs);
      if (o->kind == LayoutWorker::Outcome::Done && o->result.laidOut && o->result.error.isEmpty()) result = &o->result;
      else if (qEnvironmentVariableIsSet("GRAFT_LAYOUT_VERBOSE"))
        qInfo("layout of %s fell back: %s", qPrintable(view_->groups[g].path),
              qPrintable(o->result.error.isEmpty() ? o->why : o->result.error));
    }
    GroupLayout gl;
    gl.signature = signature(g, expanded);
    std::optional<DotResult> layered;
    if (!result && !b.job.nodes.isEmpty()) {  // Graphviz failed: drawn by the layered layout
      gl.fallback = true;
      layered = layeredLayout(b.job, options_.ranksep * kPointsPerInch, options_.nodesep * kPointsPerInch);
      result = &*layered;
    }
    finish(g, b, result, gl);
    store(g, std::move(gl));
    d.relaid << g;
    groupDone();
    const int parent = view_->groups[g].parent;
    if (parent >= 0 && staleSet.contains(parent) && --waiting[parent] == 0) ready << parent;
  };

  std::unordered_map<int, std::unique_ptr<Built>> inFlight;  // by group
  // Jobs identical to one in flight (sibling blocks of one shape) wait for its result.
  std::map<QByteArray, std::vector<std::pair<int, std::unique_ptr<Built>>>> twins;
  std::unique_ptr<Built> next;                               // built, waiting for room on a worker
  int nextGroup = -1;
  QByteArray nextBytes;
  const size_t most = size_t(options_.workers);
  for (;;) {
    if (cancel && cancel->load()) d.cancelled = true;
    while (!d.cancelled) {
      if (!next) {
        if (ready.isEmpty()) break;
        nextGroup = ready.takeFirst();
        next = std::make_unique<Built>();
        build(nextGroup, expanded, *next);
        if (next->job.nodes.isEmpty()) {  // nothing to lay out
          complete(nextGroup, *next, nullptr);
          next.reset();
          continue;
        }
        if (next->job.fault == DotJob::Fault::None) {  // a test fault must reach a worker
          LayoutWorker::Outcome laidOut;
          const DotJob& job = next->job;
          auto column = columnLayout(job, options_.ranksep * kPointsPerInch);
          if (column) {
            laidOut.result = std::move(*column);
          } else if (job.nodes.size() > options_.dotItemsUpTo || job.edges.size() > options_.dotEdgesUpTo) {
            laidOut.result = layeredLayout(job, options_.ranksep * kPointsPerInch, options_.nodesep * kPointsPerInch);
            d.layered << nextGroup;
          } else if (auto memo = dotMemo_.constFind(next->bytes = toBytes(job)); memo != dotMemo_.constEnd()) {
            laidOut.result = *memo;
            laidOut.result.workerMs = 0;
          } else {
            laidOut.kind = LayoutWorker::Outcome::Unavailable;  // not laid out here: goes to a worker
          }
          if (laidOut.kind == LayoutWorker::Outcome::Done) {
            complete(nextGroup, *next, &laidOut);
            next.reset();
            continue;
          }
        }
        if (next->bytes.isEmpty()) next->bytes = toBytes(next->job);
        if (auto twin = twins.find(next->bytes); twin != twins.end()) {
          twin->second.emplace_back(nextGroup, std::move(next));
          continue;
        }
        nextBytes = next->bytes;
      }
      // An idle worker first, then a new one (up to `most`), then the shortest queue with room.
      LayoutWorker* to = nullptr;
      for (const auto& w : workers_)
        if (w->queued() == 0) to = w.get();
      if (!to && workers_.size() < most) to = workers_.emplace_back(LayoutWorker::take()).get();
      for (const auto& w : workers_)
        if (!to && w->canTake(nextBytes.size())) to = w.get();
      if (!to) break;
      LayoutWorker::Outcome failed;
      if (to->submit(nextBytes, nextGroup, options_.timeoutMs, failed)) {
        twins[nextBytes];
        inFlight[nextGroup] = std::move(next);
        ++d.dotRuns;
      } else {
        complete(nextGroup, *next, &failed);
      }
      next.reset();
    }
    std::vector<pollfd> fds;
    std::vector<LayoutWorker*> busy;
    for (const auto& w : workers_)
      if (w->queued() > 0) {
        fds.push_back({w->fd(), POLLIN, 0});
        busy.push_back(w.get());
      }
    if (fds.empty()) break;  // all laid out, or cancelled with nothing left running
    // 100 ms at most: the cancel and each job's deadline are checked.
    if (::poll(fds.data(), nfds_t(fds.size()), 100) < 0 && errno != EINTR) break;
    for (size_t k = 0; k < busy.size(); ++k)
      for (auto& [g, o] : busy[k]->advance(fds[k].revents != 0, cancel)) {
        auto built = std::move(inFlight[g]);
        inFlight.erase(g);
        if (o.kind == LayoutWorker::Outcome::Cancelled) d.cancelled = true;
        if (!built) continue;
        std::vector<std::pair<int, std::unique_ptr<Built>>> waiting;
        if (auto twin = twins.find(built->bytes); twin != twins.end()) {
          waiting = std::move(twin->second);
          twins.erase(twin);
        }
        if (d.cancelled) continue;
        if (o.kind == LayoutWorker::Outcome::Done && o.result.laidOut && o.result.error.isEmpty())
          remember(built->bytes, o.result);
        complete(g, *built, &o);
        for (auto& [twin, twinBuilt] : waiting) complete(twin, *twinBuilt, &o);
      }
  }
}

void LayoutEngine::build(int group, const Expansion& expanded, Built& b) const {
  const auto& vg = view_->groups[group];
  DotJob& job = b.job;
  job.attributes = {{"rankdir", "TB"},
                    {"nslimit", num(options_.nslimit)},
                    {"nslimit1", num(options_.nslimit1)},
                    {"mclimit", num(options_.mclimit)},
                    {"ranksep", num(options_.ranksep)},
                    {"nodesep", num(options_.nodesep)}};
  // Nodes are named by position, not by what they stand for: two groups of one shape (the blocks
  // of an LLM) are then the same job, laid out once (dotMemo_).
  auto addNode = [&](const QByteArray&, QSizeF size, int rank = -1) {
    job.nodes.push_back({"n" + QByteArray::number(job.nodes.size()), size, rank});
    return int(job.nodes.size() - 1);
  };
  auto addRank = [&](const char* name, const char* rank) {
    job.ranks.push_back({name, rank});
    return int(job.ranks.size() - 1);
  };
  for (NodeId id : vg.nodes)
    b.nodeOf.insert(id, addNode("n" + QByteArray::number(qulonglong(id)), nodeSize(*view_->node(id))));
  for (int c : vg.children) {
    if (folds_.contains(c)) continue;
    const QSizeF s = expanded.contains(c)     ? cache_.value(c)->size
                     : foldedBy_.contains(c) ? labelBoxSize(repeatLabel(c))
                                             : collapsedGroupSize(view_->groups[c]);
    b.boxOf.insert(c, addNode("g" + QByteArray::number(c), s));
  }
  // The root shows where data enters and leaves: inputs on the top rank, outputs on the bottom.
  if (group == 0) {
    const int top = addRank("inputs", "source"), bottom = addRank("outputs", "sink");
    for (int i = 0; i < view_->graphInputs.size(); ++i)
      b.inputOf.insert(i, addNode("i" + QByteArray::number(i), terminalSize(*view_, true, i), top));
    for (int i = 0; i < view_->graphOutputs.size(); ++i)
      b.outputOf.insert(i, addNode("o" + QByteArray::number(i), terminalSize(*view_, false, i), bottom));
    // Inputs and outputs left to right in their order: dot puts a flat edge's tail left of its
    // head. These edges only order; no route is drawn for them.
    for (const auto* ports : {&b.inputOf, &b.outputOf})
      for (int i = 1; i < ports->size(); ++i) job.edges.push_back({ports->value(i - 1), ports->value(i)});
  }
  // Ports: one small invisible node per outside end, on the top rank for edges coming in and
  // the bottom rank for edges going out.
  const auto portsFor = [&](const QVector<int>& edges, bool in) {
    if (edges.isEmpty()) return;
    const int rank = addRank(in ? "ports_in" : "ports_out", in ? "source" : "sink");
    auto& ports = in ? b.portIn : b.portOut;
    for (int i : edges) {
      const qint64 key = tailKey(view_->edges[i]);
      if (ports.contains(key)) continue;
      ports.insert(key, addNode((in ? "pi" : "po") + QByteArray::number(key < 0 ? 1000000000 - key : key),
                                {kPortSize, kPortSize}, rank));
    }
  };
  portsFor(entering_[group], true);
  portsFor(leaving_[group], false);
  // One Graphviz edge per pair of items; it stands for every view edge between them.
  QHash<QPair<int, int>, int> routeOf;
  const auto addRoute = [&](int i, int t, int h, int tailChild, int headChild, bool fromFrame, bool toFrame) {
    if (t < 0 || h < 0 || t == h) return;
    auto it = routeOf.find({t, h});
    if (it != routeOf.end()) {
      ++b.routes[*it].de.count;
      return;
    }
    routeOf.insert({t, h}, int(b.routes.size()));
    Built::Route r;
    r.edge = int(job.edges.size());
    r.de.edge = i;
    r.de.fromFrame = fromFrame;
    r.de.toFrame = toFrame;
    r.endChildren = {tailChild, headChild};
    job.edges.push_back({t, h});
    b.routes.push_back(r);
  };
  const auto item = [&](NodeId node, int child) {
    return child < 0 ? b.nodeOf.value(node, -1) : b.boxOf.value(child, -1);
  };
  for (int i : entering_[group]) {
    const auto& e = view_->edges[i];
    const int ti = itemIn(group, e.to);
    addRoute(i, b.portIn.value(tailKey(e), -1), item(e.to, ti), -1, ti, true, false);
  }
  for (int i : leaving_[group]) {
    const auto& e = view_->edges[i];
    const int fi = itemIn(group, e.from);
    addRoute(i, item(e.from, fi), b.portOut.value(tailKey(e), -1), fi, -1, false, true);
  }
  for (int i : edgesAt_[group]) {
    const auto& e = view_->edges[i];
    const int fi = itemIn(group, e.from), ti = itemIn(group, e.to);
    const int t = e.from == model::kNoNode ? b.inputOf.value(e.fromPort, -1) : item(e.from, fi);
    const int h = e.to == model::kNoNode ? b.outputOf.value(e.toPort, -1) : item(e.to, ti);
    addRoute(i, t, h, e.from == model::kNoNode ? -1 : fi, e.to == model::kNoNode ? -1 : ti, false, false);
  }
  if (job.edges.size() > options_.curvedEdgesUpTo) job.attributes.push_back({"splines", "polyline"});
  if (!crashAt_.isEmpty() && vg.path == crashAt_) job.fault = DotJob::Fault::Crash;
  if (!hangAt_.isEmpty() && vg.path == hangAt_) job.fault = DotJob::Fault::Hang;
  if (!throwAt_.isEmpty() && vg.path == throwAt_) job.fault = DotJob::Fault::Throw;
}

void LayoutEngine::finish(int group, const Built& b, const DotResult* result, GroupLayout& out) const {
  const auto& vg = view_->groups[group];
  const DotJob& job = b.job;
  if (job.nodes.isEmpty()) {
    out.size = {120, kTitleHeight + 2 * kPad};
    return;
  }
  // Where each job node's centre is, in this group's coordinates, and the layout's extent.
  QVector<QPointF> centres(job.nodes.size());
  // Graphviz's y grows upwards: flipped, and moved below the group's title.
  const auto map = [&](QPointF p) {
    const QRectF& bb = result->bounds;
    return QPointF(p.x() - bb.left() + kPad, (bb.bottom() - p.y()) + kTitleHeight + kPad);
  };
  for (qsizetype i = 0; i < centres.size(); ++i) centres[i] = map(result->centres.value(i));
  const QSizeF extent = result->bounds.size();
  const auto rectOf = [&](int i) {
    const QPointF c = centres[i];
    const QSizeF s = job.nodes[i].size;
    return QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height());
  };
  for (NodeId id : vg.nodes) out.nodes.push_back({id, rectOf(b.nodeOf[id])});
  for (int c : vg.children)
    if (b.boxOf.contains(c)) out.children.push_back({c, rectOf(b.boxOf[c])});
  for (int i = 0; i < b.inputOf.size(); ++i) out.terminals.push_back({true, i, rectOf(b.inputOf.value(i))});
  for (int i = 0; i < b.outputOf.size(); ++i) out.terminals.push_back({false, i, rectOf(b.outputOf.value(i))});
  for (auto it = b.portIn.begin(); it != b.portIn.end(); ++it) out.portsIn.insert(it.key(), centres[*it]);
  for (auto it = b.portOut.begin(); it != b.portOut.end(); ++it) out.portsOut.insert(it.key(), centres[*it]);
  for (const auto& route : b.routes) {
    DiagramEdge de = route.de;
    const DotSpline spline = result->splines.value(route.edge);
    if (spline.points.isEmpty()) continue;
    for (const QPointF& p : spline.points) de.points << map(p);
    de.arrow = spline.arrow;
    if (spline.arrow) de.arrowTip = map(spline.arrowTip);
    if (de.toFrame && de.arrow) {
      // It goes on outside the frame, where its arrow is drawn: run the line to the port instead.
      const QPointF end = de.points.back();
      de.points << end << de.arrowTip << de.arrowTip;
      de.arrow = false;
    }
    out.edges.push_back(de);
    out.endChildren.push_back(route.endChildren);
  }
  const double title = groupLabel(vg).front().size() * kCharWidth + 40;
  out.size = {std::max(extent.width() + 2 * kPad, title), extent.height() + kTitleHeight + 2 * kPad};
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
