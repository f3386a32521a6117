#include "core/rewrite/pattern_draft.h"

#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QRegularExpression>
#include <QtCore/QSet>

#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace graft::core::rewrite {

using torch::jit::Node;
using torch::jit::Value;

namespace {

// A constant as a condition's literal (see literalEquals in pattern_rewrite); empty for tensors
// and anything else a condition cannot state.
QString literalOf(Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return {};
  auto iv = torch::jit::toIValue(v);
  if (!iv) return {};
  if (iv->isNone()) return QStringLiteral("None");
  if (iv->isBool()) return iv->toBool() ? QStringLiteral("true") : QStringLiteral("false");
  if (iv->isInt()) return QString::number(iv->toInt());
  if (iv->isDouble()) return QString::number(iv->toDouble(), 'g', 17);
  if (iv->isIntList()) {
    QStringList items;
    for (auto i : iv->toIntVector()) items << QString::number(i);
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
  }
  if (iv->isString()) return QLatin1Char('"') + QString::fromStdString(iv->toStringRef()) + QLatin1Char('"');
  return {};
}

// IR names must not clash with the ones libtorch makes up (%0, %1, ...) for unnamed values.
std::string nameFor(Value* v) { return v->hasDebugName() ? v->debugName() : "v" + std::to_string(v->unique()); }

// A constant as a Python literal (a double keeps a '.', so it traces as a float), empty for
// tensors and anything else.
QString pythonLiteral(const c10::IValue& iv) {
  if (iv.isNone()) return QStringLiteral("None");
  if (iv.isBool()) return iv.toBool() ? QStringLiteral("True") : QStringLiteral("False");
  if (iv.isInt()) return QString::number(iv.toInt());
  if (iv.isDouble()) {
    const double d = iv.toDouble();
    if (std::isinf(d)) return d > 0 ? QStringLiteral("float('inf')") : QStringLiteral("float('-inf')");
    if (std::isnan(d)) return QStringLiteral("float('nan')");
    QString s = QString::number(d, 'g', 17);
    if (!s.contains(QLatin1Char('.')) && !s.contains(QLatin1Char('e'))) s += QStringLiteral(".0");
    return s;
  }
  if (iv.isIntList()) {
    QStringList items;
    for (auto i : iv.toIntVector()) items << QString::number(i);
    return QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']');
  }
  if (iv.isString()) return QLatin1Char('"') + QString::fromStdString(iv.toStringRef()) + QLatin1Char('"');
  return {};
}

QString pythonName(const std::string& name) {
  QString n = QString::fromStdString(name);
  n.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_]")), QStringLiteral("_"));
  if (n.isEmpty() || n[0].isDigit()) n.prepend(QLatin1Char('v'));
  static const QStringList reserved{"def",    "return",  "input",       "min",   "max",   "type",   "list",  "in",
                                    "is",     "not",     "and",         "or",    "if",    "else",   "for",   "while",
                                    "lambda", "None",    "True",        "False", "from",  "import", "torch", "F",
                                    "Tensor", "pattern", "replacement", "pass",  "class", "with",   "as"};
  if (reserved.contains(n)) n += QLatin1Char('_');
  return n;
}

// The pattern graph as Python: `literals` holds the value of each input that stands for a
// constant of the model (written in place), `ranks` the rank of each tensor input (-1: unknown).
QString pythonDraft(torch::jit::Graph& g, const std::unordered_map<const Value*, c10::IValue>& literals,
                    const std::unordered_map<const Value*, int>& ranks, QString& error) {
  std::unordered_map<const Value*, QString> expr;
  QSet<QString> used;
  const auto fresh = [&](const std::string& base) {
    QString name = pythonName(base);
    for (int k = 2; used.contains(name); ++k) name = pythonName(base) + QLatin1Char('_') + QString::number(k);
    used.insert(name);
    return name;
  };
  QStringList args;
  bool annotated = false;
  for (Value* in : g.inputs()) {
    if (auto it = literals.find(in); it != literals.end()) {
      const QString lit = pythonLiteral(it->second);
      if (lit.isEmpty()) {
        error =
            QStringLiteral("the constant %%1 cannot be written in Python").arg(QString::fromStdString(in->debugName()));
        return {};
      }
      expr[in] = lit;
      continue;
    }
    if (!in->type()->cast<c10::TensorType>()) {
      error = QStringLiteral("%%1 (%2) comes from outside the selection and is not a tensor: a Python rule's "
                             "arguments are tensors; add the nodes computing it to the selection")
                  .arg(QString::fromStdString(in->debugName()), QString::fromStdString(in->type()->str()));
      return {};
    }
    const QString name = fresh(in->debugName());
    expr[in] = name;
    const auto r = ranks.find(in);
    if (r != ranks.end() && r->second >= 0) {
      args << QStringLiteral("%1: Tensor[%2]").arg(name).arg(r->second);
      annotated = true;
    } else {
      args << name;
    }
  }
  QStringList body;
  for (Node* n : g.nodes()) {
    QStringList inputs;
    for (Value* v : n->inputs()) inputs << expr.at(v);
    if (n->kind() == c10::prim::ListConstruct) {
      expr[n->output()] = QLatin1Char('[') + inputs.join(QStringLiteral(", ")) + QLatin1Char(']');
      continue;
    }
    const auto* schema = n->maybeSchema();
    if (!n->kind().is_aten() || !schema) {
      error = QStringLiteral("%1 is not an ATen operator Python can call")
                  .arg(QString::fromStdString(n->kind().toQualString()));
      return {};
    }
    const QString overload =
        schema->overload_name().empty() ? QStringLiteral("default") : QString::fromStdString(schema->overload_name());
    const QString call =
        QStringLiteral("torch.ops.aten.%1.%2(%3)")
            .arg(QString::fromStdString(n->kind().toUnqualString()), overload, inputs.join(QStringLiteral(", ")));
    QStringList outs;
    for (Value* o : n->outputs()) {
      const QString name = fresh(o->debugName());
      expr[o] = name;
      outs << name;
    }
    body << QStringLiteral("    %1 = %2").arg(outs.join(QStringLiteral(", ")), call);
  }
  body << QStringLiteral("    return %1").arg(expr.at(g.outputs()[0]));
  const QString signature = args.join(QStringLiteral(", "));
  QString text = QStringLiteral("\"\"\"New rule from selection: edit the replacement.\"\"\"\nimport torch\n");
  if (annotated) text += QStringLiteral("\nfrom graft.rules import Tensor\n");
  text += QStringLiteral("\n\ndef pattern(%1):\n%2\n\n\ndef replacement(%1):\n%2\n")
              .arg(signature, body.join(QLatin1Char('\n')));
  return text;
}

}  // namespace

PatternDraft patternFromNodes(const model::Revision& revision, const QVector<model::NodeId>& ids) {
  PatternDraft draft;
  std::unordered_set<const Node*> chosen;
  for (auto id : ids) {
    Node* n = revision.nodeOf(id);
    if (!n) {
      draft.error = QStringLiteral("node %1 is not in this revision").arg(id);
      return draft;
    }
    if (n->kind().is_prim()) continue;  // constants and lists come along with their users
    if (!n->blocks().empty()) {
      draft.error = QStringLiteral("%1 has nested blocks, which a pattern cannot hold")
                        .arg(QString::fromStdString(n->kind().toQualString()));
      return draft;
    }
    chosen.insert(n);
  }
  if (chosen.empty()) {
    draft.error = QStringLiteral("select at least one op node (Ctrl+click adds to the selection)");
    return draft;
  }
  // Graph order keeps every definition before its use.
  std::vector<Node*> order;
  for (Node* n : revision.graph()->nodes())
    if (chosen.count(n)) order.push_back(n);
  if (order.size() != chosen.size()) {
    draft.error = QStringLiteral("select nodes of the top-level graph only");
    return draft;
  }

  torch::jit::Graph pattern;
  // Activations coming in are one input each; every use of a constant is its own input, so the
  // draft does not depend on which equal constants a graph happens to share.
  std::unordered_map<Value*, Value*> mapped;
  std::unordered_set<std::string> names;
  // For the Python form: the constant each input stands for, and each tensor input's rank.
  std::unordered_map<const Value*, c10::IValue> constantOf;
  std::unordered_map<const Value*, int> rankOf;
  // libtorch renames the value already holding a name, so unique names are chosen here.
  const auto uniqueName = [&](const std::string& base) {
    std::string name = base;
    for (int k = 2; names.count(name); ++k) name = base + "_" + std::to_string(k);
    names.insert(name);
    return name;
  };
  // An outside value becomes an input named after the argument it feeds (%weight, %stride), so
  // the draft reads like the op's schema; a scalar constant also gets a condition pinning it.
  const auto inputFor = [&](Value* v, const std::string& name) -> Value* {
    const bool constant = v->node()->kind() == c10::prim::Constant;
    if (!constant)
      if (auto it = mapped.find(v); it != mapped.end()) return it->second;
    Value* made = pattern.addInput(uniqueName(constant ? name : nameFor(v)));
    // Sizes and strides of one layer's tensors would only clutter the draft (types are not matched).
    made->setType(v->type()->cast<c10::TensorType>() ? c10::TensorType::get() : v->type());
    if (const QString lit = literalOf(v); !lit.isEmpty())
      draft.conditions << QStringLiteral("%%1 == %2").arg(QString::fromStdString(made->debugName()), lit);
    if (constant)
      if (auto iv = torch::jit::toIValue(v); iv && !iv->isTensor()) constantOf[made] = *iv;
    if (auto t = v->type()->cast<c10::TensorType>(); t && t->dim()) rankOf[made] = int(*t->dim());
    else if (constant)
      if (auto iv = torch::jit::toIValue(v); iv && iv->isTensor()) rankOf[made] = int(iv->toTensor().dim());
    if (!constant) mapped[v] = made;
    return made;
  };
  const auto copyOf = [&](Node* n, const std::vector<Value*>& inputs, const std::string& name) {
    Node* c = pattern.appendNode(pattern.create(n->kind(), inputs, n->outputs().size()));
    c->copyAttributes(*n);
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      c->output(i)->setType(n->output(i)->type());
      c->output(i)->setDebugName(uniqueName(name));
    }
    return c;
  };
  const auto inputsOf = [&](Node* n) {
    const auto* schema = n->maybeSchema();
    std::vector<Value*> inputs;
    for (size_t i = 0; i < n->inputs().size(); ++i) {
      Value* v = n->input(i);
      const std::string name = schema && i < schema->arguments().size() ? schema->arguments()[i].name() : nameFor(v);
      Node* producer = v->node();
      if (auto it = mapped.find(v); it != mapped.end() && producer->kind() != c10::prim::Constant) {
        inputs.push_back(it->second);
      } else if (producer->kind() == c10::prim::ListConstruct && !chosen.count(producer)) {
        // A list of settings ([1, 1] strides) is part of the op: copy it, its items as inputs.
        std::vector<Value*> items;
        for (size_t j = 0; j < producer->inputs().size(); ++j)
          items.push_back(inputFor(producer->input(j), name + "_" + std::to_string(j)));
        inputs.push_back(copyOf(producer, items, name)->output());
      } else {
        inputs.push_back(inputFor(v, name));
      }
    }
    return inputs;
  };
  Value* result = nullptr;
  Node* copy = nullptr;
  for (Node* n : order) {
    copy = copyOf(n, inputsOf(n), n->kind().toUnqualString());  // %batch_norm, %relu_
    for (size_t i = 0; i < n->outputs().size(); ++i) {
      mapped[n->output(i)] = copy->output(i);
      bool usedOutside = false;
      for (const auto& use : n->output(i)->uses()) usedOutside = usedOutside || !chosen.count(use.user);
      if (!usedOutside) continue;
      if (result) {
        draft.error =
            QStringLiteral(
                "the selection has more than one result used outside it (%%1 and %%2); "
                "a pattern returns one value")
                .arg(QString::fromStdString(result->debugName()), QString::fromStdString(n->output(i)->debugName()));
        return draft;
      }
      result = copy->output(i);
    }
  }
  if (!result) result = copy->output(0);
  pattern.registerOutput(result);
  draft.pattern = QString::fromStdString(pattern.toString());
  draft.python = pythonDraft(pattern, constantOf, rankOf, draft.pythonError);
  return draft;
}

}  // namespace graft::core::rewrite
