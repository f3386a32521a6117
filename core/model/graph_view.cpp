#include "core/model/graph_view.h"

#include "core/model/document.h"
#include "core/model/folding.h"

#include "core/model/graph_walk.h"
#include "core/model/module_path.h"
#include "core/model/revision.h"
#include "core/model/size_expression.h"
#include "core/model/value_format.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/script.h>

#include <QtCore/QRegularExpression>
#include <map>

namespace graft::core::model {

namespace {

using torch::jit::Node;
using torch::jit::Value;


// The aten::Bool in front of an `if`: a program's torch.cond takes the tensor itself.
// Arithmetic on symbolic sizes (a program's `_operator.mul` of two SymInts, imported as
// aten::mul.int): no tensor in or out. torch.export does not count these as operator calls.
bool isSizeArithmetic(const Node* node) {
  if (node->outputs().empty()) return false;
  for (const auto* v : node->inputs()) if (!isScalarValue(v)) return false;
  for (const auto* v : node->outputs()) if (!isScalarValue(v)) return false;
  return true;
}

bool isBranchCondition(const Node* node) {
  if (node->kind() != c10::aten::Bool || node->output()->uses().empty()) return false;
  for (const auto& use : node->output()->uses())
    if (use.user->kind() != c10::prim::If) return false;
  return true;
}

QString foldedValue(const Node* producer, QString& kindOut) {
  const auto kind = producer->kind();
  if (isSizeComputation(producer)) {
    kindOut = kind == c10::prim::ListConstruct ? QStringLiteral("list") : QStringLiteral("constant");
    return sizeExpression(producer->output());
  }
  if (kind == c10::prim::GetAttr) {
    // self.layer1.0.conv1.weight: the chain of attribute names.
    QStringList names;
    const Node* n = producer;
    while (n && n->kind() == c10::prim::GetAttr) {
      names.prepend(QString::fromStdString(n->s(c10::attr::name)));
      n = n->input(0)->node();
    }
    kindOut = QStringLiteral("parameter");
    return QStringLiteral("self.") + names.join(QLatin1Char('.'));
  }
  if (auto iv = torch::jit::toIValue(producer->output())) {
    kindOut = iv->isTensor() ? QStringLiteral("tensor")
              : (iv->isList() || iv->isTuple()) ? QStringLiteral("list")
                                                : QStringLiteral("constant");
    return formatIValue(*iv);
  }
  // A list of constants that toIValue could not fold (e.g. a list of tensors).
  QStringList parts;
  for (const Value* in : producer->inputs())
    if (auto iv = torch::jit::toIValue(in)) parts << formatIValue(*iv);
  kindOut = QStringLiteral("list");
  return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}


QString shortTypeName(const c10::ClassTypePtr& type) {
  if (!type || !type->name()) return {};
  return QString::fromStdString(type->name()->name());
}

// The group of the module call `place` names, made (with the calls above it) where missing.
int groupFor(GraphView& view, std::map<QString, int>& byPath, const NodePlace& place) {
  int parent = 0;
  QString prefix, instance;
  for (qsizetype i = 0; i < place.modulePath.size(); ++i) {
    const QString name = place.callName(i);
    prefix = i == 0 ? name : prefix + QLatin1Char('.') + name;
    instance = i == 0 ? place.modulePath[i] : instance + QLatin1Char('.') + place.modulePath[i];
    auto it = byPath.find(prefix);
    if (it == byPath.end()) {
      ViewGroup g;
      g.index = view.groups.size();
      g.parent = parent;
      g.name = name;
      g.path = prefix;
      g.instancePath = instance;
      g.call = place.callAt(i);
      // A program's places hold qualified class names (torch.nn.modules.conv.Conv2d): the class shows.
      g.typeName = i < place.moduleTypes.size() ? place.moduleTypes[i].section(QLatin1Char('.'), -1) : QString();
      view.groups[parent].children.push_back(g.index);
      view.groups.push_back(g);
      it = byPath.emplace(prefix, g.index).first;
    }
    parent = it->second;
  }
  return parent;
}

// Maps each value's debug name to the 0-based line that defines it in the printed IR.
QHash<QString, int> irLinesByValue(const QString& ir) {
  QHash<QString, int> lines;
  static const QRegularExpression def(QStringLiteral(R"(^\s*%([^\s:]+)\s*:)"));
  const auto all = ir.split(QLatin1Char('\n'));
  for (int i = 0; i < all.size(); ++i) {
    auto m = def.match(all[i]);
    if (m.hasMatch() && !all[i].trimmed().startsWith(QStringLiteral("graph("))) lines.insert(m.captured(1), i);
  }
  return lines;
}

}  // namespace

namespace {

// An edge or port whose graph type has no sizes takes what a run saw of its value, if any.
void fillObservedTypes(GraphView& view, const ObservedTypes& observed) {
  const auto fill = [&](QString& type, const QString& value) {
    // Recorded, or symbolic: the graph's own word; only a rank ("[?, ?]") takes what the run saw.
    if (type.contains(QLatin1Char('[')) && !type.contains(QLatin1Char('?'))) return;
    if (const auto it = observed.constFind(value); it != observed.constEnd()) type = *it;
  };
  for (auto& p : view.graphInputs) fill(p.type, p.name);
  for (auto& p : view.graphOutputs) fill(p.type, p.name);
  for (auto& n : view.nodes)
    for (auto& p : n.outputs) fill(p.type, p.name);
  for (auto& e : view.edges) {
    fill(e.type, e.value);
    const auto to = view.indexOf.constFind(e.to);
    if (e.to != kNoNode && to != view.indexOf.constEnd() && e.toPort < view.nodes[*to].inputs.size())
      fill(view.nodes[*to].inputs[e.toPort].type, e.value);
  }
}

}  // namespace

int GraphView::opCount() const {
  int n = 0;
  for (int count : histogram) n += count;
  return n;
}

QHash<QString, int> GraphView::opHistogram() const { return histogram; }

GraphView GraphView::build(const Revision& revision, const Document& document) {
  GraphView view = build(revision);
  const auto name = [](QVector<ViewPort>& ports, const QStringList& paths) {
    if (paths.size() == ports.size())
      for (int i = 0; i < ports.size(); ++i) ports[i].path = paths[i];
  };
  name(view.graphInputs, document.inputNames());
  name(view.graphOutputs, document.outputNames());
  if (const auto observed = document.observedTypes(&revision)) fillObservedTypes(view, *observed);
  return view;
}

GraphView GraphView::build(const Revision& revision) {
  GraphView view;
  view.symbolRanges = revision.symbolRanges();
  const auto& graph = *revision.graph();
  ViewGroup root;
  root.name = QString();
  root.typeName = shortTypeName(revision.module().type());
  view.groups.push_back(root);
  std::map<QString, int> groupByPath;
  const auto irLines = irLinesByValue(revision.irText());

  // A tuple built at the end and returned is not drawn: its items are the graph's outputs.
  const Value* returned = graph.outputs().size() == 1 ? graph.outputs()[0] : nullptr;
  const Node* resultTuple = returned && returned->node()->kind() == c10::prim::TupleConstruct &&
                                    returned->node()->owningBlock() == graph.block() && returned->uses().size() == 1
                                ? returned->node()
                                : nullptr;

  // Graph inputs (skipping the module itself) are numbered from 0.
  std::unordered_map<const Value*, int> graphInputIndex;
  for (const Value* in : graph.inputs()) {
    if (in->type()->cast<c10::ClassType>()) continue;
    graphInputIndex[in] = view.graphInputs.size();
    view.graphInputs.push_back({QString::fromStdString(in->debugName()), formatType(in)});
  }

  std::vector<std::pair<const Node*, int>> hiddenSizes;  // size computations drawn as attributes, and their steps
  // Where each value comes from: an op node's output port.
  std::unordered_map<const Value*, std::pair<NodeId, int>> producer;
  // `e` carries value `v` from a graph input or the op that made it; false when `v` is defined in
  // an enclosing block that was not walked.
  const auto edgeFrom = [&](const Value* v, ViewEdge& e) {
    e.type = formatType(v);
    e.value = QString::fromStdString(v->debugName());
    if (auto gi = graphInputIndex.find(v); gi != graphInputIndex.end()) {
      e.from = kNoNode;
      e.fromPort = gi->second;
    } else if (auto p = producer.find(v); p != producer.end()) {
      e.from = p->second.first;
      e.fromPort = p->second.second;
    } else {
      return false;
    }
    return true;
  };

  // The branches of an `if` (TorchScript's, or torch.cond's in a program) are shown as nested
  // groups named as torch.export names them (true_graph_0, false_graph_0); loop bodies are not.
  int shownIfs = 0;
  // `branchGroup` is the group of the branch being walked: 0 at top level, -1 inside a body
  // that is not shown.
  std::function<void(torch::jit::Block*, int, int)> walk = [&](torch::jit::Block* block, int depth, int branchGroup) {
    const bool shown = branchGroup >= 0;
    for (Node* n : block->nodes()) {
      ++view.jitNodes;
      if (!n->kind().is_prim()) ++view.histogram[QString::fromStdString(n->kind().toQualString())];
      // The casts an autocast region's import writes (pt2_import) are torch.autocast's, not the program's ops.
      const bool autocastCast = n->kind() == c10::Symbol::fromQualString("aten::_autocast_to_reduced_precision") ||
                                n->kind() == c10::Symbol::fromQualString("aten::_autocast_to_full_precision");
      if (depth == 0 && !n->kind().is_prim() && !isBranchCondition(n) && !isSizeArithmetic(n) && !autocastCast)
        ++view.programOps;
      if (shown && isSizeComputation(n)) {
        hiddenSizes.push_back({n, int(view.steps.size())});
        view.steps.push_back({revision.idOf(n), QString::fromStdString(n->kind().toQualString()), kNoNode});
        continue;
      }
      if ((shown && (isFolded(n) || isItemList(n))) || n == resultTuple) continue;
      ViewNode vn;
      vn.id = revision.idOf(n);
      vn.kind = QString::fromStdString(n->kind().toQualString());
      vn.op = QString::fromStdString(n->kind().toUnqualString());
      vn.blockDepth = depth;
      if (const auto* schema = n->maybeSchema()) {
        std::ostringstream os;
        os << *schema;
        vn.schema = QString::fromStdString(os.str());
      }
      const NodePlace& place = revision.placeOf(vn.id);
      vn.modulePath = place.callPath();
      vn.instancePath = place.path();
      vn.group = depth == 0 ? groupFor(view, groupByPath, place) : std::max(branchGroup, 0);
      vn.sourceFile = place.sourceFile;
      vn.sourceLine = place.sourceLine;
      vn.sourceText = place.sourceText;
      // An edge from where `in` comes from into a new input port of vn named `portName`.
      const auto addInputEdge = [&](const Value* in, const QString& portName) {
        vn.inputs.push_back({portName, formatType(in)});
        ViewEdge e;
        e.to = vn.id;
        e.toPort = vn.inputs.size() - 1;
        if (shown && edgeFrom(in, e)) view.edges.push_back(e);
      };
      for (size_t i = 0; i < n->inputs().size(); ++i) {
        const Value* in = n->input(i);
        const QString argName = argumentName(n, i);
        const Node* src = in->node();
        if (shown && isItemList(src)) {  // cat's tensors: each item its own input, "tensors[1]"
          for (size_t k = 0; k < src->inputs().size(); ++k)
            addInputEdge(src->input(k), QStringLiteral("%1[%2]").arg(argName).arg(k));
          continue;
        }
        if ((isFolded(src) || isSizeComputation(src)) &&
            (src->owningBlock() == graph.block() || src->owningBlock() == n->owningBlock())) {
          ViewAttribute attr;
          attr.name = argName;
          attr.value = foldedValue(src, attr.kind);
          if (argName == QLatin1String("dtype") && attr.kind == QLatin1String("constant")) {
            bool ok = false;
            const int code = attr.value.toInt(&ok);
            if (ok) attr.value = dtypeName(code);
          }
          vn.attributes.push_back(attr);
          // A quantized weight (or packed weight) also says how its integers map to reals.
          if (src->kind() == c10::prim::Constant)
            if (auto iv = torch::jit::toIValue(src->output()))
              for (const auto& [fact, text] : quantizationFacts(*iv))
                vn.attributes.push_back({argName + QLatin1Char('.') + fact, text, QStringLiteral("quantization")});
          continue;
        }
        if (in->type()->cast<c10::ClassType>()) continue;  // `self`
        addInputEdge(in, argName);
      }
      for (size_t i = 0; i < n->outputs().size(); ++i) {
        const Value* out = n->output(i);
        vn.outputs.push_back({QString::fromStdString(out->debugName()), formatType(out)});
        producer[out] = {vn.id, static_cast<int>(i)};
      }
      if (!n->outputs().empty()) vn.irLine = irLines.value(QString::fromStdString(n->output(0)->debugName()), -1);
      const NodeId id = vn.id;
      const int group = vn.group;
      if (shown) {
        view.steps.push_back({vn.id, vn.kind, vn.id});
        view.indexOf.insert(vn.id, view.nodes.size());
        view.groups[vn.group].nodes.push_back(vn.id);
        view.nodes.push_back(std::move(vn));
      }
      if (shown && n->kind() == c10::prim::If) {
        const int index = shownIfs++;
        for (size_t b = 0; b < n->blocks().size(); ++b) {
          ViewGroup g;
          g.index = view.groups.size();
          g.parent = group;
          g.name =
              QStringLiteral("%1_graph_%2").arg(b == 0 ? QStringLiteral("true") : QStringLiteral("false")).arg(index);
          g.path = view.groups[group].path.isEmpty() ? g.name : view.groups[group].path + QLatin1Char('.') + g.name;
          g.instancePath = view.groups[group].instancePath.isEmpty()
                               ? g.name
                               : view.groups[group].instancePath + QLatin1Char('.') + g.name;
          g.typeName = b == 0 ? QStringLiteral("if true") : QStringLiteral("if false");
          view.groups[group].children.push_back(g.index);
          view.groups.push_back(g);
          walk(n->blocks()[b], depth + 1, g.index);
          // What the branch returns flows into the `if`.
          auto& ifNode = view.nodes[view.indexOf.value(id)];
          const auto returned = n->blocks()[b]->outputs();
          for (size_t i = 0; i < returned.size(); ++i) {
            auto p = producer.find(returned[i]);
            if (p == producer.end()) continue;
            ifNode.inputs.push_back({QStringLiteral("%1[%2]").arg(g.name).arg(i), formatType(returned[i])});
            view.edges.push_back({p->second.first, p->second.second, id, int(ifNode.inputs.size()) - 1,
                                  formatType(returned[i]), QString::fromStdString(returned[i]->debugName())});
          }
        }
      } else {
        for (auto* sub : n->blocks()) walk(sub, depth + 1, -1);
      }
    }
  };
  walk(revision.graph()->block(), 0, 0);
  // A hidden size computation is charged to the first shown op that reads it, through others.
  std::unordered_map<const Node*, NodeId> chargedTo;
  std::function<NodeId(const Node*)> reader = [&](const Node* n) -> NodeId {
    if (auto it = chargedTo.find(n); it != chargedTo.end()) return it->second;
    NodeId found = kNoNode;
    for (const auto& use : n->output()->uses()) {
      const NodeId id = revision.idOf(use.user);
      found = view.indexOf.contains(id) ? id : isSizeComputation(use.user) ? reader(use.user) : kNoNode;
      if (found != kNoNode) break;
    }
    return chargedTo[n] = found;
  };
  for (const auto& [n, step] : hiddenSizes) view.steps[step].chargedTo = reader(n);

  const auto outputs = resultTuple ? resultTuple->inputs() : graph.outputs();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Value* out = outputs[i];
    view.graphOutputs.push_back({QString::fromStdString(out->debugName()), formatType(out)});
    ViewEdge e;
    e.to = kNoNode;
    e.toPort = static_cast<int>(i);
    if (edgeFrom(out, e)) view.edges.push_back(e);
  }

  // Totals bottom-up: children are always created after their parents.
  for (const auto& n : view.nodes)
    if (!n.kind.startsWith(QStringLiteral("prim::"))) ++view.groups[n.group].totalOps;
  for (int g = view.groups.size() - 1; g >= 0; --g) {
    auto& group = view.groups[g];
    group.totalNodes += group.nodes.size();
    if (group.parent >= 0) {
      view.groups[group.parent].totalNodes += group.totalNodes;
      view.groups[group.parent].totalOps += group.totalOps;
    }
  }
  return view;
}

}  // namespace graft::core::model
