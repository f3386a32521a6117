#include "core/layout/layered_layout.h"

#include <algorithm>
#include <climits>
#include <limits>

namespace graft::core::layout {

namespace {
constexpr double kArrowLength = 10;  // dot's default arrowhead, in points
constexpr double kChannelGap = 6;    // between a channel and what is beside it, in points
constexpr int kOrderSweeps = 4;
constexpr int kPlaceSweeps = 8;

enum class Pin { None, Source, Sink };

// A node of the job, or one rank of a channel (the bundled route of one item's long edges).
struct Item {
  int rank = 0;
  double width = 0, height = 0, x = 0;
  int pos = 0;  // order within its rank
  bool real = true;
  QVector<int> up, down;  // neighbours on the rank above / below
};

struct Layering {
  QVector<Item> items;
  QVector<QVector<int>> ranks;  // items per rank, in order
  QVector<QVector<int>> channel;  // per node: its channel items, one per rank below it
};

// Ranks by longest path over the edges as `reversed` directs them; pinned nodes first and last.
QVector<int> rankNodes(const DotJob& job, const QVector<Pin>& pin, const QVector<bool>& flat,
                       const QVector<bool>& reversed) {
  const qsizetype n = job.nodes.size();
  QVector<QVector<int>> out(n);
  QVector<int> indegree(n, 0);
  for (qsizetype e = 0; e < job.edges.size(); ++e) {
    if (flat[e]) continue;
    auto [a, b] = job.edges[e];
    if (reversed[e]) std::swap(a, b);
    out[a] << b;
    ++indegree[b];
  }
  const bool sources = std::count(pin.begin(), pin.end(), Pin::Source) > 0;
  QVector<int> rank(n, sources ? 1 : 0), order;
  for (int i = 0; i < n; ++i) {
    if (pin[i] == Pin::Source) rank[i] = 0;
    if (indegree[i] == 0) order << i;
  }
  const QVector<int> preds = indegree;
  for (int k = 0; k < order.size(); ++k)
    for (int b : out[order[k]]) {
      if (pin[b] != Pin::Source) rank[b] = std::max(rank[b], rank[order[k]] + 1);
      if (--indegree[b] == 0) order << b;
    }
  // A node nothing feeds (a constant, an arange) sits just above its first reader, not at the top.
  for (int i : order)
    if (preds[i] == 0 && pin[i] == Pin::None && !out[i].isEmpty()) {
      int first = INT_MAX;
      for (int b : out[i]) first = std::min(first, rank[b]);
      rank[i] = std::max(rank[i], first - 1);
    }
  int last = -1;
  for (int i = 0; i < n; ++i)
    if (pin[i] != Pin::Sink) last = std::max(last, rank[i]);
  for (int i = 0; i < n; ++i)
    if (pin[i] == Pin::Sink) rank[i] = last + 1;
  return rank;
}

// Edges that must run against their direction: into a source-pinned node, out of a sink-pinned
// one, and the back edges a depth-first search finds (a cycle's closing edge).
QVector<bool> reversedEdges(const DotJob& job, const QVector<Pin>& pin, const QVector<bool>& flat) {
  const qsizetype n = job.nodes.size();
  QVector<bool> reversed(job.edges.size(), false);
  QVector<QVector<QPair<int, int>>> out(n);  // (head, edge) as directed now
  for (qsizetype e = 0; e < job.edges.size(); ++e) {
    if (flat[e]) continue;
    const auto [t, h] = job.edges[e];
    reversed[e] = pin[h] == Pin::Source || pin[t] == Pin::Sink;
    if (reversed[e]) out[h] << qMakePair(t, int(e));
    else out[t] << qMakePair(h, int(e));
  }
  QVector<char> state(n, 0);  // 0 new, 1 on the stack, 2 done
  QVector<QPair<int, int>> stack;  // node, next out edge
  for (int root = 0; root < n; ++root) {
    if (state[root]) continue;
    stack << qMakePair(root, 0);
    state[root] = 1;
    while (!stack.isEmpty()) {
      auto& [v, next] = stack.back();
      if (next == out[v].size()) {
        state[v] = 2;
        stack.pop_back();
        continue;
      }
      const auto [w, e] = out[v][next++];
      if (state[w] == 1) reversed[e] = !reversed[e];
      else if (state[w] == 0) {
        state[w] = 1;
        stack << qMakePair(w, 0);
      }
    }
  }
  return reversed;
}

// Orders each rank by the barycentre of its neighbours above (down sweeps) or below (up sweeps).
void order(Layering& l, const QVector<bool>& fixed) {
  for (int sweep = 0; sweep < 2 * kOrderSweeps; ++sweep) {
    const bool down = sweep % 2 == 0;
    for (int k = 0; k < l.ranks.size(); ++k) {
      const int r = down ? k : int(l.ranks.size()) - 1 - k;
      if (fixed[r]) continue;
      QVector<QPair<double, int>> keyed;
      for (int i : l.ranks[r]) {
        const auto& next = down ? l.items[i].up : l.items[i].down;
        double key = l.items[i].pos;
        if (!next.isEmpty()) {
          key = 0;
          for (int j : next) key += l.items[j].pos;
          key /= double(next.size());
        }
        keyed << qMakePair(key, i);
      }
      std::stable_sort(keyed.begin(), keyed.end(), [](auto& a, auto& b) { return a.first < b.first; });
      for (int p = 0; p < keyed.size(); ++p) {
        l.ranks[r][p] = keyed[p].second;
        l.items[keyed[p].second].pos = p;
      }
    }
  }
}

// x per item: each rank keeps its order and spacing, and each item moves towards the mean of its
// neighbours of its own kind (a node follows nodes, a channel its channel) in alternate sweeps.
void place(Layering& l, double nodesep) {
  const auto gap = [&](int a, int b) {
    const Item &p = l.items[a], &q = l.items[b];
    return (p.width + q.width) / 2 + (p.real && q.real ? nodesep : kChannelGap);
  };
  for (const auto& rank : l.ranks)
    for (int p = 0; p < rank.size(); ++p)
      l.items[rank[p]].x = p == 0 ? 0 : l.items[rank[p - 1]].x + gap(rank[p - 1], rank[p]);
  for (int sweep = 0; sweep < kPlaceSweeps; ++sweep) {
    const bool down = sweep % 2 == 0;
    for (int k = 0; k < l.ranks.size(); ++k) {
      const auto& rank = l.ranks[down ? k : l.ranks.size() - 1 - k];
      if (rank.isEmpty()) continue;
      QVector<double> want(rank.size());
      for (int p = 0; p < rank.size(); ++p) {
        const Item& it = l.items[rank[p]];
        double same = 0, all = 0;
        int nSame = 0;
        for (int j : down ? it.up : it.down) {
          all += l.items[j].x;
          if (l.items[j].real == it.real) same += l.items[j].x, ++nSame;
        }
        const auto& next = down ? it.up : it.down;
        want[p] = nSame ? same / nSame : next.isEmpty() ? it.x : all / double(next.size());
      }
      // Packed from the left and from the right, each as close to its wish as the order allows;
      // the mean of the two keeps the spacing.
      QVector<double> left(want), right(want);
      for (int p = 1; p < rank.size(); ++p) left[p] = std::max(want[p], left[p - 1] + gap(rank[p - 1], rank[p]));
      for (int p = int(rank.size()) - 2; p >= 0; --p)
        right[p] = std::min(want[p], right[p + 1] - gap(rank[p], rank[p + 1]));
      for (int p = 0; p < rank.size(); ++p) l.items[rank[p]].x = (left[p] + right[p]) / 2;
    }
  }
}

QVector<QPointF> bezier(const QVector<QPointF>& line) {
  QVector<QPointF> out{line.front()};
  for (int i = 1; i < line.size(); ++i) {
    const QPointF a = line[i - 1], b = line[i];
    out << a + (b - a) / 3 << a + (b - a) * 2 / 3 << b;
  }
  return out;
}
}  // namespace

DotResult layeredLayout(const DotJob& job, double ranksep, double nodesep) {
  const qsizetype n = job.nodes.size();
  DotResult r;
  r.laidOut = true;
  if (n == 0) return r;
  QVector<Pin> pin(n, Pin::None);
  for (int i = 0; i < n; ++i)
    if (job.nodes[i].rank >= 0) {
      const QByteArray& want = job.ranks.value(job.nodes[i].rank).second;
      pin[i] = want == "source" ? Pin::Source : want == "sink" ? Pin::Sink : Pin::None;
    }
  // A flat edge (between two pinned ends of one side, such as the root's inputs) only orders.
  QVector<bool> flat(job.edges.size(), false);
  for (qsizetype e = 0; e < job.edges.size(); ++e) {
    const auto [t, h] = job.edges[e];
    flat[e] = t == h || (pin[t] != Pin::None && pin[t] == pin[h]);
  }
  const QVector<bool> reversed = reversedEdges(job, pin, flat);
  const QVector<int> rank = rankNodes(job, pin, flat, reversed);

  Layering l;
  l.items.resize(n);
  l.channel.resize(n);
  int ranks = 0;
  for (int i = 0; i < n; ++i) {
    l.items[i].rank = rank[i];
    l.items[i].width = job.nodes[i].size.width();
    l.items[i].height = job.nodes[i].size.height();
    ranks = std::max(ranks, rank[i] + 1);
  }
  const auto dagEnds = [&](qsizetype e) {
    auto [a, b] = job.edges[e];
    if (reversed[e]) std::swap(a, b);
    return qMakePair(a, b);
  };
  // One channel per item with edges reaching past the next rank, as deep as its deepest reader.
  QVector<int> reach(n, -1);
  for (qsizetype e = 0; e < job.edges.size(); ++e)
    if (!flat[e]) {
      const auto [a, b] = dagEnds(e);
      if (rank[b] > rank[a] + 1) reach[a] = std::max(reach[a], rank[b]);
    }
  for (int a = 0; a < n; ++a) {
    int above = a;
    for (int k = rank[a] + 1; k < reach[a]; ++k) {
      Item c;
      c.rank = k;
      c.real = false;
      c.up << above;
      l.items << c;
      const int id = int(l.items.size() - 1);
      l.items[above].down << id;
      l.channel[a] << id;
      above = id;
    }
  }
  for (qsizetype e = 0; e < job.edges.size(); ++e) {
    if (flat[e]) continue;
    const auto [a, b] = dagEnds(e);
    if (rank[b] <= rank[a]) continue;
    const int above = rank[b] == rank[a] + 1 ? a : l.channel[a][rank[b] - rank[a] - 2];
    if (!l.items[above].down.contains(b)) {
      l.items[above].down << b;
      l.items[b].up << above;
    }
  }
  l.ranks.resize(ranks);
  for (int i = 0; i < l.items.size(); ++i) {
    l.items[i].pos = int(l.ranks[l.items[i].rank].size());
    l.ranks[l.items[i].rank] << i;
  }
  // Ranks holding a flat edge keep the order it asks for (the job's order).
  QVector<bool> fixed(ranks, false);
  for (qsizetype e = 0; e < job.edges.size(); ++e)
    if (flat[e]) fixed[rank[job.edges[e].first]] = true;
  order(l, fixed);
  place(l, nodesep);

  // y grows downwards here (flipped at the end): each rank as tall as its tallest node.
  QVector<double> top(ranks, 0), height(ranks, 0);
  for (int i = 0; i < n; ++i) height[rank[i]] = std::max(height[rank[i]], l.items[i].height);
  for (int k = 1; k < ranks; ++k) top[k] = top[k - 1] + height[k - 1] + ranksep;
  const double total = top.back() + height.back();
  double minX = std::numeric_limits<double>::max(), maxX = std::numeric_limits<double>::lowest();
  for (const Item& it : l.items) {
    minX = std::min(minX, it.x - it.width / 2);
    maxX = std::max(maxX, it.x + it.width / 2);
  }
  const auto at = [&](double x, double y) { return QPointF(x - minX, total - y); };
  const auto centreY = [&](int i) { return top[rank[i]] + height[rank[i]] / 2; };
  r.bounds = QRectF(0, 0, maxX - minX, total);
  r.centres.resize(n);
  for (int i = 0; i < n; ++i) r.centres[i] = at(l.items[i].x, centreY(i));
  r.splines.resize(job.edges.size());
  for (qsizetype e = 0; e < job.edges.size(); ++e) {
    DotSpline& s = r.splines[e];
    const auto [a, b] = dagEnds(e);
    if (flat[e] || rank[b] <= rank[a]) {
      s.points = bezier({r.centres[job.edges[e].first], r.centres[job.edges[e].second]});
      continue;
    }
    // Down from the tail's bottom, through its channel, into the head's top.
    const Item &ta = l.items[a], &hb = l.items[b];
    QVector<QPointF> line{{ta.x, centreY(a) + ta.height / 2}, {ta.x, top[rank[a]] + height[rank[a]]}};
    for (int k = 0; k < rank[b] - rank[a] - 1; ++k) {
      const Item& c = l.items[l.channel[a][k]];
      line << QPointF(c.x, top[c.rank]) << QPointF(c.x, top[c.rank] + height[c.rank]);
    }
    const double tip = centreY(b) - hb.height / 2, end = tip - kArrowLength;
    if (top[rank[b]] < end) line << QPointF(hb.x, top[rank[b]]);
    line << QPointF(hb.x, end);
    QVector<QPointF> points;
    for (const QPointF& p : line)
      if (const QPointF q = at(p.x(), p.y()); points.isEmpty() || points.back() != q) points << q;
    if (points.size() < 2) points << points.front();
    if (reversed[e]) {
      std::reverse(points.begin(), points.end());
    } else {
      s.arrow = true;
      s.arrowTip = at(hb.x, tip);
    }
    s.points = bezier(points);
  }
  return r;
}

}  // namespace graft::core::layout
