#include "core/model/repeats.h"

#include <QtCore/QHash>

namespace graft::core::model {

namespace {

// Whether group `g` is `group` or lies inside it: a module call's nodes are those of its group.
bool inside(const GraphView& view, int g, int group) {
  for (; g >= 0; g = view.groups[g].parent)
    if (g == group) return true;
  return false;
}

}  // namespace

QString structureOf(const GraphView& view, int group) {
  // Paths relative to the module itself: the calls of one shared module repeat each other too.
  const QString root = view.groups[group].instancePath;
  // The group's nodes (its submodules' included) in graph order, numbered.
  QHash<NodeId, int> local;
  QVector<const ViewNode*> nodes;
  for (const auto& n : view.nodes)
    if (n.blockDepth == 0 && inside(view, n.group, group)) {
      local.insert(n.id, nodes.size());
      nodes << &n;
    }
  // Inputs by consumer and port; producers outside the group are numbered by first use.
  QHash<NodeId, QVector<const ViewEdge*>> edgesTo;
  for (const auto& e : view.edges)
    if (local.contains(e.to)) edgesTo[e.to] << &e;
  QHash<QString, int> external;
  QStringList parts;
  for (const ViewNode* n : nodes) {
    const QString relative = n->instancePath.mid(root.isEmpty() ? 0 : root.size());
    QStringList ins;
    auto edges = edgesTo.value(n->id);
    std::sort(edges.begin(), edges.end(), [](const ViewEdge* a, const ViewEdge* b) { return a->toPort < b->toPort; });
    // Each input with its shape (and each weight's, below): stages of one design at different
    // widths (ResNet's layer2–4) are not repeats of each other, and one box would hide that their
    // shapes differ.
    for (const ViewEdge* e : edges) {
      ins << e->type;
      if (e->from != kNoNode && local.contains(e->from)) {
        ins << QStringLiteral("%1.%2").arg(local.value(e->from)).arg(e->fromPort);
      } else {
        const QString key = QStringLiteral("%1/%2").arg(e->from).arg(e->fromPort);
        auto it = external.find(key);
        if (it == external.end()) it = external.insert(key, external.size());
        ins << QStringLiteral("x%1").arg(*it);
      }
    }
    // Weights by shape: in a TorchScript file the values carry no shapes, the weights do.
    for (const auto& a : n->attributes)
      if (a.kind == QLatin1String("tensor") || a.kind == QLatin1String("parameter")) ins << a.value;
    parts << QStringLiteral("%1@%2(%3)").arg(n->kind, relative, ins.join(QLatin1Char(',')));
  }
  return parts.join(QLatin1Char(';'));
}

QVector<Repeat> findRepeats(const GraphView& view) {
  QVector<Repeat> repeats;
  QVector<int> queue{0};
  while (!queue.isEmpty()) {
    const int parent = queue.takeFirst();
    const auto& children = view.groups[parent].children;
    int i = 0;
    while (i < children.size()) {
      const int first = children[i];
      // A block, not a lone op: single-op modules side by side (q, k, v) are not worth folding.
      const QString shape = view.groups[first].totalOps >= 2 ? structureOf(view, first) : QString();
      int j = i + 1;
      while (!shape.isEmpty() && j < children.size() &&
             view.groups[children[j]].typeName == view.groups[first].typeName &&
             structureOf(view, children[j]) == shape)
        ++j;
      if (j - i >= 2) {
        Repeat r;
        r.parent = parent;
        r.typeName = view.groups[first].typeName;
        for (int k = i; k < j; ++k) {
          r.groups << children[k];
          r.paths << view.groups[children[k]].path;
        }
        repeats << r;
        queue << children[i];  // repeats inside one representative are listed once
      } else {
        queue << children[i];
      }
      i = j;
    }
  }
  return repeats;
}

}  // namespace graft::core::model
