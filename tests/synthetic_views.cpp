#include "synthetic_views.h"

namespace graft::test {

namespace model = core::model;

std::shared_ptr<const model::GraphView> repeatedBlocks(int blocks) {
  auto v = std::make_shared<model::GraphView>();
  auto addGroup = [&](int parent, const QString& name) {
    model::ViewGroup g;
    g.index = int(v->groups.size());
    g.parent = parent;
    g.name = name;
    g.path = parent <= 0 ? name : v->groups[parent].path + QLatin1Char('.') + name;
    g.typeName = parent <= 0 ? QStringLiteral("Model") : QStringLiteral("Block");
    if (parent >= 0) v->groups[parent].children << g.index;
    v->groups << g;
    return g.index;
  };
  addGroup(-1, QString());
  const int top = addGroup(0, QStringLiteral("model"));
  model::NodeId next = 1;
  auto addNode = [&](int group, const QString& op) {
    model::ViewNode n;
    n.id = next++;
    n.op = op;
    n.kind = QStringLiteral("aten::") + op;
    n.group = group;
    n.modulePath = v->groups[group].path;
    n.outputs << model::ViewPort{QStringLiteral("v%1").arg(n.id), QStringLiteral("float32 [1, 16, 64]")};
    v->indexOf.insert(n.id, int(v->nodes.size()));
    v->nodes << n;
    v->groups[group].nodes << n.id;
    return n.id;
  };
  auto edge = [&](model::NodeId a, model::NodeId b) {
    model::ViewEdge e;
    e.from = a;
    e.to = b;
    e.type = QStringLiteral("float32 [1, 16, 64]");
    e.value = QStringLiteral("v%1").arg(a);
    v->edges << e;
  };
  const model::NodeId mask = addNode(top, QStringLiteral("full"));
  model::NodeId prev = addNode(top, QStringLiteral("embedding"));
  for (int k = 0; k < blocks; ++k) {
    const int g = addGroup(top, QStringLiteral("h.%1").arg(k));
    const model::NodeId in = addNode(g, QStringLiteral("layer_norm")), a = addNode(g, QStringLiteral("mm")),
                        b = addNode(g, QStringLiteral("softmax")), out = addNode(g, QStringLiteral("add"));
    edge(prev, in);
    edge(in, a);
    edge(in, b);
    edge(mask, b);
    edge(a, out);
    edge(b, out);
    prev = out;
  }
  for (int g = int(v->groups.size()) - 1; g >= 0; --g) {
    v->groups[g].totalNodes += int(v->groups[g].nodes.size());
    v->groups[g].totalOps = v->groups[g].totalNodes;
    if (v->groups[g].parent >= 0) v->groups[v->groups[g].parent].totalNodes += v->groups[g].totalNodes;
  }
  return v;
}

}  // namespace graft::test
