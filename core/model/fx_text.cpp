#include "core/model/fx_text.h"

#include "core/model/revision.h"
#include "core/model/value_format.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/script.h>

#include <QtCore/QSet>

#include <charconv>
#include <functional>
#include <unordered_map>

namespace graft::core::model {

QString fxTarget(const c10::FunctionSchema& schema) {
  const std::string& qual = schema.name();
  const auto sep = qual.find("::");
  return QStringLiteral("torch.ops.%1.%2.%3")
      .arg(QString::fromStdString(qual.substr(0, sep)), QString::fromStdString(qual.substr(sep + 2)),
           schema.overload_name().empty() ? QStringLiteral("default") : QString::fromStdString(schema.overload_name()));
}

namespace {

using torch::jit::Node;
using torch::jit::Value;

// Python's spelling of a constant argument; a device reads `cpu` in the listing and
// `device(type='cpu')` in the code, as fx writes them.
QString pythonLiteral(const c10::IValue& v, const c10::TypePtr& argType, bool forGraph) {
  if (v.isNone()) return QStringLiteral("None");
  if (v.isBool()) return v.toBool() ? QStringLiteral("True") : QStringLiteral("False");
  if (v.isInt()) {
    const auto kind = argType && argType->kind() == c10::TypeKind::OptionalType
                          ? argType->expectRef<c10::OptionalType>().getElementType()->kind()
                          : (argType ? argType->kind() : c10::TypeKind::IntType);
    if (kind == c10::TypeKind::ScalarTypeType) return QStringLiteral("torch.") + dtypeName(int(v.toInt()));
    return QString::number(v.toInt());
  }
  if (v.isDouble()) {
    char buffer[32];  // the shortest text that reads back as the same double, as Python's repr
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, v.toDouble()).ptr;
    QString text = QString::fromLatin1(buffer, int(end - buffer));
    if (!text.contains(QLatin1Char('.')) && !text.contains(QLatin1Char('e')) && !text.contains(QLatin1String("inf")) &&
        !text.contains(QLatin1String("nan")))
      text += QStringLiteral(".0");
    return text;
  }
  if (v.isString()) return QLatin1Char('\'') + QString::fromStdString(v.toStringRef()) + QLatin1Char('\'');
  if (v.isDevice()) {
    const QString device = QString::fromStdString(v.toDevice().str());
    return forGraph ? device : QStringLiteral("device(type='%1')").arg(device);
  }
  if (v.isList()) {
    QStringList parts;
    for (const auto& e : v.toListRef()) parts << pythonLiteral(e, nullptr, forGraph);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
  }
  return formatIValue(v);
}

// Users as fx counts them: a use inside an `if` counts once, for the `if` in the value's block.
int usersOf(const Value* v) {
  QSet<const Node*> users;
  for (const auto& use : v->uses()) {
    const Node* user = use.user;
    while (user->owningBlock() != v->node()->owningBlock() && user->owningBlock()->owningNode())
      user = user->owningBlock()->owningNode();
    users.insert(user);
  }
  return int(users.size());
}

bool isDefault(const Value* v, const c10::Argument& arg) {
  if (!arg.default_value() || v->node()->kind() != c10::prim::Constant) return false;
  const auto iv = torch::jit::toIValue(v);
  return iv && !iv->isTensor() && *iv == *arg.default_value();
}

class Writer {
 public:
  explicit Writer(const Revision& rev) : rev_(rev) {}

  FxText write() {
    const auto graph = rev_.graph();
    std::function<void(const torch::jit::Block*)> collect = [&](const torch::jit::Block* block) {
      for (const Node* n : block->nodes()) {
        for (const Value* o : n->outputs())
          if (o->hasDebugName())
            usedNames_.insert(QString::fromStdString(o->debugName()).replace(QLatin1Char('.'), QLatin1Char('_')));
        for (auto* sub : n->blocks()) collect(sub);
      }
    };
    collect(graph->block());
    for (const Value* in : graph->inputs()) usedNames_.insert(QString::fromStdString(in->debugName()));
    QStringList params;
    // Placeholders: the tensor constants (a program's parameters and buffers), then the inputs.
    std::vector<const Value*> placeholders;
    for (const Node* n : graph->nodes())
      if (n->kind() == c10::prim::Constant && n->output()->type()->cast<c10::TensorType>())
        placeholders.push_back(n->output());
    for (const Value* in : graph->inputs())
      if (!in->type()->cast<c10::ClassType>()) placeholders.push_back(in);
    out_.graph.text = QStringLiteral("graph():\n");
    out_.code.text = QStringLiteral("\n\n\ndef forward(self%1):\n");
    graphLine_ = 1;
    codeLine_ = 4;
    for (const Value* p : placeholders) {
      const QString name = nameOf(p);
      params << name;
      graphAppend(QStringLiteral("    %%1 : [num_users=%2] = placeholder[target=%1]").arg(name).arg(usersOf(p)));
    }
    out_.code.text =
        out_.code.text.arg(params.isEmpty() ? QString() : QStringLiteral(", ") + params.join(QStringLiteral(", ")));
    writeBlock(graph->block(), 1);
    QStringList results;
    for (const Value* o : graph->outputs()) {
      if (o->node()->kind() == c10::prim::TupleConstruct)
        for (const Value* e : o->node()->inputs()) results << argText(e, nullptr, false);
      else results << argText(o, nullptr, false);
    }
    const QString tuple = QLatin1Char('(') + results.join(QStringLiteral(", ")) +
                          (results.size() == 1 ? QStringLiteral(",)") : QStringLiteral(")"));
    graphAppend(QStringLiteral("    return ") + QString(tuple).remove(QLatin1Char('%')));
    codeAppend(QStringLiteral("    return ") + QString(tuple).remove(QLatin1Char('%')));
    return out_;
  }

 private:
  void graphAppend(const QString& line) {
    out_.graph.text += line + QLatin1Char('\n');
    ++graphLine_;
  }
  void codeAppend(const QString& line) {
    out_.code.text += line + QLatin1Char('\n');
    ++codeLine_;
  }

  QString nameOf(const Value* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    QString name = v->hasDebugName() ? QString::fromStdString(v->debugName()) : QStringLiteral("v%1").arg(v->unique());
    name.replace(QLatin1Char('.'), QLatin1Char('_'));
    if (name.front().isDigit()) name.prepend(QLatin1Char('v'));
    names_[v] = name;
    return name;
  }

  // An argument: a value by name (`%x` in the listing, `x` in the code) or a constant inline.
  QString argText(const Value* v, const c10::Argument* arg, bool forGraph) {
    const Node* p = v->node();
    if (p->kind() == c10::prim::Constant && !v->type()->cast<c10::TensorType>()) {
      if (auto iv = torch::jit::toIValue(v)) return pythonLiteral(*iv, arg ? arg->type() : nullptr, forGraph);
    }
    if ((p->kind() == c10::prim::ListConstruct || p->kind() == c10::prim::TupleConstruct) &&
        p->owningBlock() == v->owningGraph()->block()) {
      QStringList items;
      for (const Value* e : p->inputs()) items << argText(e, nullptr, forGraph);
      return p->kind() == c10::prim::ListConstruct
                 ? QLatin1Char('[') + items.join(QStringLiteral(", ")) + QLatin1Char(']')
                 : QLatin1Char('(') + items.join(QStringLiteral(", ")) + QLatin1Char(')');
    }
    return (forGraph ? QStringLiteral("%") : QString()) + nameOf(v);
  }

  // Where fx would only see structure (constants, lists), nothing is written.
  static bool isInlined(const Node* n) {
    const auto k = n->kind();
    return k == c10::prim::Constant || k == c10::prim::ListConstruct || k == c10::prim::TupleConstruct;
  }

  void writeBlock(torch::jit::Block* block, int depth) {
    const QString indent(4 * depth, QLatin1Char(' '));
    for (Node* n : block->nodes()) {
      if (isInlined(n) && (n->kind() != c10::prim::TupleConstruct || n->output()->uses().empty() ||
                           n->output()->uses()[0].user->kind() != c10::prim::Return))
        continue;
      if (n->kind() == c10::prim::TupleConstruct) continue;  // the returned tuple, written by `return`
      if (n->kind() == c10::aten::Bool && !n->output()->uses().empty() &&
          n->output()->uses()[0].user->kind() == c10::prim::If)
        continue;  // a torch.cond takes its predicate tensor as is
      const NodeId id = rev_.idOf(n);
      if (n->kind() == c10::prim::If) {
        writeIf(n, depth, id);
        continue;
      }
      QStringList outs, args, kwargs, codeArgs;
      for (const Value* o : n->outputs()) outs << nameOf(o);
      const auto* schema = n->maybeSchema();
      const QString target = schema ? fxTarget(*schema) : QString::fromStdString(n->kind().toQualString());
      // Positional arguments up to the last one not at its default; keyword ones where they differ.
      size_t positional = 0;
      for (size_t i = 0; i < n->inputs().size(); ++i) {
        const c10::Argument* arg = schema && i < schema->arguments().size() ? &schema->arguments()[i] : nullptr;
        if (!arg || (!arg->kwarg_only() && !isDefault(n->input(i), *arg))) positional = i + 1;
      }
      for (size_t i = 0; i < n->inputs().size(); ++i) {
        const c10::Argument* arg = schema && i < schema->arguments().size() ? &schema->arguments()[i] : nullptr;
        const Value* in = n->input(i);
        if (in->type()->cast<c10::ClassType>()) continue;
        if (arg && (arg->kwarg_only() ? isDefault(in, *arg) : i >= positional)) continue;
        if (arg && arg->kwarg_only()) {
          const QString key = QString::fromStdString(arg->name());
          kwargs << QStringLiteral("%1: %2").arg(key, argText(in, arg, true));
          codeArgs << QStringLiteral("%1 = %2").arg(key, argText(in, arg, false));
        } else {
          args << argText(in, arg, true);
          codeArgs << argText(in, arg, false);
        }
      }
      const QString argTuple = QLatin1Char('(') + args.join(QStringLiteral(", ")) +
                               (args.size() == 1 ? QStringLiteral(",)") : QStringLiteral(")"));
      // A node with several outputs is named after its op, and getitem takes each output, as in fx.
      const bool single = n->outputs().size() == 1;
      const QString nodeName = single ? outs.front() : uniqueName(QString::fromStdString(n->kind().toUnqualString()));
      out_.graph.lineOf.insert(id, graphLine_);
      graphAppend(QStringLiteral("%1%%2 : [num_users=%3] = call_function[target=%4](args = %5, kwargs = {%6})")
                      .arg(indent, nodeName)
                      .arg(single ? usersOf(n->output()) : int(n->outputs().size()))
                      .arg(target, argTuple, kwargs.join(QStringLiteral(", "))));
      out_.code.lineOf.insert(id, codeLine_);
      codeAppend(QStringLiteral("%1%2 = %3(%4)").arg(indent, nodeName, target, codeArgs.join(QStringLiteral(", "))));
      if (single) continue;
      for (size_t k = 0; k < n->outputs().size(); ++k) {
        graphAppend(
            QStringLiteral(
                "%1%%2 : [num_users=%3] = call_function[target=operator.getitem](args = (%%4, %5), kwargs = {})")
                .arg(indent, outs[int(k)])
                .arg(usersOf(n->output(k)))
                .arg(nodeName)
                .arg(k));
        codeAppend(QStringLiteral("%1%2 = %3[%4]").arg(indent, outs[int(k)], nodeName).arg(k));
      }
    }
  }

  // A name no value has: `base`, else base_1, base_2, …
  QString uniqueName(const QString& base) {
    QString name = base;
    for (int i = 1; usedNames_.contains(name); ++i) name = QStringLiteral("%1_%2").arg(base).arg(i);
    usedNames_.insert(name);
    return name;
  }

  // torch.cond(pred, true_graph_N, false_graph_N, operands), written as Python's if/else.
  void writeIf(Node* n, int depth, NodeId id) {
    const QString indent(4 * depth, QLatin1Char(' '));
    Value* cond = n->input(0);
    const Value* pred = cond->node()->kind() == c10::aten::Bool ? cond->node()->input(0) : cond;
    QStringList outs;
    for (const Value* o : n->outputs()) outs << nameOf(o);
    const int index = ifs_++;
    out_.graph.lineOf.insert(id, graphLine_);
    graphAppend(QStringLiteral("%1%2 : [num_users=%3] = call_function[target=torch.ops.higher_order.cond](args = (%4, "
                               "%true_graph_%5, %false_graph_%5))")
                    .arg(indent, QStringLiteral("%") + outs.join(QStringLiteral(", %")))
                    .arg(n->outputs().empty() ? 0 : usersOf(n->output(0)))
                    .arg(argText(pred, nullptr, true))
                    .arg(index));
    out_.code.lineOf.insert(id, codeLine_);
    codeAppend(
        QStringLiteral("%1if %2:  # torch.cond: true_graph_%3").arg(indent, argText(pred, nullptr, false)).arg(index));
    for (size_t b = 0; b < n->blocks().size(); ++b) {
      const QString branch =
          QStringLiteral("%1_graph_%2").arg(b == 0 ? QStringLiteral("true") : QStringLiteral("false")).arg(index);
      graphAppend(QStringLiteral("%1  %2():").arg(indent, branch));
      if (b == 1) codeAppend(QStringLiteral("%1else:  # %2").arg(indent, branch));
      writeBlock(n->blocks()[b], depth + 1);
      const auto returned = n->blocks()[b]->outputs();
      QStringList results, graphResults;
      for (const Value* r : returned) {
        results << argText(r, nullptr, false);
        graphResults << argText(r, nullptr, true);
      }
      graphAppend(QStringLiteral("%1    return (%2)").arg(indent, graphResults.join(QStringLiteral(", "))));
      if (!outs.isEmpty())
        codeAppend(QStringLiteral("%1    %2 = %3")
                       .arg(indent, outs.join(QStringLiteral(", ")), results.join(QStringLiteral(", "))));
      else if (n->blocks()[b]->nodes().begin() == n->blocks()[b]->nodes().end())
        codeAppend(indent + QStringLiteral("    pass"));
    }
  }

  const Revision& rev_;
  FxText out_;
  int graphLine_ = 0;
  int codeLine_ = 0;
  int ifs_ = 0;
  std::unordered_map<const Value*, QString> names_;
  QSet<QString> usedNames_;
};

}  // namespace

FxText fxText(const Revision& revision) { return Writer(revision).write(); }

}  // namespace graft::core::model
