#include "core/edit/edit.h"
#include "core/model/folding.h"

#include "core/edit/edit_context.h"
#include "core/edit/value_text.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <QtCore/QJsonValue>

namespace graft::core::edit {

namespace {

using torch::jit::Node;
using torch::jit::Value;

template <class... Ts>
struct Overloaded : Ts... { using Ts::operator()...; };
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

EditResult refused(model::NodeId node, QString message) { return {nullptr, node, std::move(message)}; }

using model::isFolded;

// "relu" -> aten::relu; "aten::relu" as is.
std::optional<c10::Symbol> opSymbol(const QString& op, QString* error) {
  const QString name = op.contains(QLatin1String("::")) ? op.trimmed() : QStringLiteral("aten::") + op.trimmed();
  try {
    const auto sym = c10::Symbol::fromQualString(name.toStdString());
    if (torch::jit::getAllOperatorsFor(sym).empty()) {
      *error = QStringLiteral("no operator named %1 is registered").arg(name);
      return std::nullopt;
    }
    return sym;
  } catch (const std::exception&) {
    *error = QStringLiteral("'%1' is not an operator name such as aten::relu").arg(op);
    return std::nullopt;
  }
}

QString firstLine(const std::exception& e) {
  QString s = QString::fromUtf8(e.what()).trimmed();
  return s.section(QLatin1Char('\n'), 0, 0);
}

// Schema matching errors list each overload and why it failed: keep the first one.
QString callError(const std::exception& e) {
  const QStringList lines = QString::fromUtf8(e.what()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  for (int i = 0; i + 1 < lines.size(); ++i) {
    const QString l = lines[i].trimmed();
    if (l.contains(QLatin1String("::")) && l.contains(QLatin1String("->")))
      return QStringLiteral("%1 %2").arg(l, lines[i + 1].trimmed());
  }
  return firstLine(e);
}

// Carries the inlined call stack and source range over, so the new node stays in its module.
void inheritPlace(Node* to, const Node* from) {
  to->setSourceRange(from->sourceRange());
  if (from->callstack()) to->setCallStack(*from->callstack());
}

// Inputs that are edges (computed values), not folded constants or weights.
bool isEdgeInput(const Value* v) { return !isFolded(v->node()); }

EditResult finish(EditContext& ctx, const model::Revision& base, model::NodeIdSource& ids, const Edit& edit,
                  model::NodeId about) {
  if (auto refusal = ctx.validate(about)) return refused(refusal->node, refusal->message);
  return {model::Revision::derived(base, ctx.graphPtr(), ctx.ids(), describe(edit, base), ids), model::kNoNode, {}};
}

EditResult bypass(const Edit& edit, model::NodeId id, std::optional<int> input, const model::Revision& base,
                  model::NodeIdSource& ids) {
  EditContext ctx(base);
  Node* n = ctx.node(id);
  if (!n) return refused(id, QStringLiteral("node %1 does not exist in this revision").arg(id));
  if (isFolded(n)) return refused(id, ctx.label(n) + QStringLiteral(" is a folded constant: edit its value instead"));
  if (n->outputs().size() != 1)
    return refused(
        id, ctx.label(n) +
                QStringLiteral(" has %1 outputs; only single-output nodes can be bypassed").arg(n->outputs().size()));
  if (!n->blocks().empty())
    return refused(id, ctx.label(n) + QStringLiteral(" has nested blocks and cannot be bypassed"));
  Value* out = n->output();
  Value* replacement = nullptr;
  if (input) {
    if (*input < 0 || *input >= static_cast<int>(n->inputs().size()))
      return refused(id, ctx.label(n) + QStringLiteral(" has no input %1").arg(*input));
    Value* in = n->input(*input);
    if (!in->type()->isSubtypeOf(*out->type()))
      return refused(id, ctx.label(n) + QStringLiteral(": input %1 is %2 but the output is %3")
                                            .arg(*input)
                                            .arg(QString::fromStdString(in->type()->annotation_str()),
                                                 QString::fromStdString(out->type()->annotation_str())));
    replacement = in;
  } else {
    // Loaded graphs rarely keep shapes, so "same type" says little: deleting is only for nodes
    // with a single tensor input (dropout, identity, relu); the rest need an explicit bypass.
    int tensors = 0;
    for (Value* in : n->inputs()) tensors += in->type()->isSubtypeOf(*c10::TensorType::get());
    if (tensors > 1)
      return refused(
          id, ctx.label(n) + QStringLiteral(" cannot be deleted: it has %1 tensor inputs; bypass it to choose the one "
                                            "that takes its place")
                                 .arg(tensors));
    for (Value* in : n->inputs())
      if (isEdgeInput(in) && in->type()->isSubtypeOf(*out->type())) { replacement = in; break; }
    if (!replacement)
      return refused(id, ctx.label(n) + QStringLiteral(" cannot be deleted: no input has its output's type %1")
                             .arg(QString::fromStdString(out->type()->annotation_str())));
  }
  ctx.touchUsers(out);
  out->replaceAllUsesWith(replacement);
  std::vector<Node*> feeders;
  for (Value* in : n->inputs()) feeders.push_back(in->node());
  ctx.destroy(n);
  for (Node* f : feeders) ctx.removeIfDeadConstant(f);
  return finish(ctx, base, ids, edit, id);
}

// Argument types by name across every overload of `sym`, for parsing text arguments.
std::optional<c10::TypePtr> argumentType(c10::Symbol sym, const QString& name) {
  for (const auto& op : torch::jit::getAllOperatorsFor(sym))
    for (const auto& a : op->schema().arguments())
      if (QString::fromStdString(a.name()) == name) return a.type();
  return std::nullopt;
}

EditResult insertOp(const InsertOp& e, const model::Revision& base, model::NodeIdSource& ids) {
  EditContext ctx(base);
  Node* consumer = ctx.node(e.consumer);
  if (!consumer) return refused(e.consumer, QStringLiteral("node %1 does not exist in this revision").arg(e.consumer));
  if (e.input < 0 || e.input >= static_cast<int>(consumer->inputs().size()))
    return refused(e.consumer, ctx.label(consumer) + QStringLiteral(" has no input %1").arg(e.input));
  QString error;
  const auto sym = opSymbol(e.op, &error);
  if (!sym) return refused(e.consumer, error);
  Value* v = consumer->input(e.input);
  std::vector<torch::jit::NamedValue> kwargs;
  for (auto it = e.arguments.begin(); it != e.arguments.end(); ++it) {
    const auto type = argumentType(*sym, it.key());
    if (!type) return refused(e.consumer, QStringLiteral("%1 has no argument '%2'").arg(e.op, it.key()));
    auto value = parseValueText(it.value(), *type, &error);
    if (!value) return refused(e.consumer, QStringLiteral("argument '%1': %2").arg(it.key(), error));
    kwargs.emplace_back(it.key().toStdString(), *value);
  }
  Value* out = nullptr;
  try {
    torch::jit::WithInsertPoint guard(consumer);
    out = ctx.graph().insert(*sym, {torch::jit::NamedValue(v)}, kwargs);
  } catch (const std::exception& ex) {
    return refused(e.consumer, QStringLiteral("%1 cannot take %%2 (%3) as its first argument: %4")
                                   .arg(e.op, QString::fromStdString(v->debugName()),
                                        QString::fromStdString(v->type()->annotation_str()), callError(ex)));
  }
  if (out->node()->kind() != *sym)
    return refused(
        e.consumer,
        QStringLiteral("%1 has several outputs; only single-output ops can be inserted on an edge").arg(e.op));
  inheritPlace(out->node(), consumer);
  ctx.touch(out->node());
  ctx.touch(consumer);
  consumer->replaceInput(e.input, out);
  return finish(ctx, base, ids, e, e.consumer);
}

EditResult replaceOp(const ReplaceOp& e, const model::Revision& base, model::NodeIdSource& ids) {
  EditContext ctx(base);
  Node* n = ctx.node(e.node);
  if (!n) return refused(e.node, QStringLiteral("node %1 does not exist in this revision").arg(e.node));
  if (isFolded(n) || n->kind().is_prim())
    return refused(e.node, ctx.label(n) + QStringLiteral(" is not an operator call and cannot be replaced"));
  if (n->outputs().size() != 1)
    return refused(
        e.node,
        ctx.label(n) +
            QStringLiteral(" has %1 outputs; only single-output nodes can be replaced").arg(n->outputs().size()));
  QString error;
  const auto sym = opSymbol(e.op, &error);
  if (!sym) return refused(e.node, error);
  std::vector<torch::jit::NamedValue> positional;
  for (Value* in : n->inputs()) positional.emplace_back(in);
  Value* out = nullptr;
  QString firstError;
  {
    torch::jit::WithInsertPoint guard(n);
    try {
      out = ctx.graph().insert(*sym, positional);
    } catch (const std::exception& ex) {
      firstError = callError(ex);
    }
    // Then by name: the first input stays first, the rest go where the new schema has the same name.
    const auto* oldSchema = matchingSchema(n);
    if (!out && oldSchema && !n->inputs().empty()) {
      std::vector<torch::jit::NamedValue> kwargs;
      for (size_t i = 1; i < n->inputs().size() && i < oldSchema->arguments().size(); ++i) {
        const QString name = QString::fromStdString(oldSchema->arguments()[i].name());
        if (argumentType(*sym, name)) kwargs.emplace_back(name.toStdString(), n->input(i));
      }
      try {
        out = ctx.graph().insert(*sym, {torch::jit::NamedValue(n->input(0))}, kwargs);
      } catch (const std::exception&) {
      }
    }
  }
  if (!out)
    return refused(e.node, ctx.label(n) + QStringLiteral(": its inputs do not fit %1: %2").arg(e.op, firstError));
  if (out->node()->kind() != *sym)
    return refused(e.node, QStringLiteral("%1 has several outputs; a node with one output cannot become it").arg(e.op));
  inheritPlace(out->node(), n);
  ctx.touch(out->node());
  ctx.touchUsers(n->output());
  n->output()->replaceAllUsesWith(out);
  std::vector<Node*> feeders;
  for (Value* in : n->inputs()) feeders.push_back(in->node());
  ctx.destroy(n);
  for (Node* f : feeders) ctx.removeIfDeadConstant(f);
  return finish(ctx, base, ids, e, e.node);
}

// Whether `from` is computed (transitively) from an output of `target`.
bool dependsOn(const Node* from, const Node* target, std::unordered_set<const Node*>& seen) {
  if (from == target) return true;
  if (!seen.insert(from).second) return false;
  for (const Value* in : from->inputs())
    if (dependsOn(in->node(), target, seen)) return true;
  return false;
}

EditResult rewire(const RewireInput& e, const model::Revision& base, model::NodeIdSource& ids) {
  EditContext ctx(base);
  Node* consumer = ctx.node(e.consumer);
  Node* producer = ctx.node(e.producer);
  if (!consumer) return refused(e.consumer, QStringLiteral("node %1 does not exist in this revision").arg(e.consumer));
  if (!producer) return refused(e.producer, QStringLiteral("node %1 does not exist in this revision").arg(e.producer));
  if (e.input < 0 || e.input >= static_cast<int>(consumer->inputs().size()))
    return refused(e.consumer, ctx.label(consumer) + QStringLiteral(" has no input %1").arg(e.input));
  if (e.output < 0 || e.output >= static_cast<int>(producer->outputs().size()))
    return refused(e.producer, ctx.label(producer) + QStringLiteral(" has no output %1").arg(e.output));
  std::unordered_set<const Node*> seen;
  if (dependsOn(producer, consumer, seen))
    return refused(
        e.consumer,
        ctx.label(consumer) + QStringLiteral(" cannot read %1: it depends on this node, so the edit would make a cycle")
                                  .arg(ctx.label(producer)));
  Node* old = consumer->input(e.input)->node();
  ctx.touch(consumer);
  consumer->replaceInput(e.input, producer->output(e.output));
  ctx.removeIfDeadConstant(old);
  return finish(ctx, base, ids, e, e.consumer);
}

EditResult editConstant(const EditConstant& e, const model::Revision& base, model::NodeIdSource& ids) {
  EditContext ctx(base);
  Node* consumer = ctx.node(e.consumer);
  if (!consumer) return refused(e.consumer, QStringLiteral("node %1 does not exist in this revision").arg(e.consumer));
  const auto* schema = matchingSchema(consumer);
  if (!schema) return refused(e.consumer, ctx.label(consumer) + QStringLiteral(" has no schema naming its arguments"));
  int index = -1;
  for (size_t i = 0; i < schema->arguments().size() && i < consumer->inputs().size(); ++i)
    if (QString::fromStdString(schema->arguments()[i].name()) == e.argument) index = static_cast<int>(i);
  if (index < 0)
    return refused(e.consumer, ctx.label(consumer) + QStringLiteral(" has no argument '%1'").arg(e.argument));
  Value* old = consumer->input(index);
  Node* producer = old->node();
  const bool foldedList = producer->kind() == c10::prim::ListConstruct &&
                          std::all_of(producer->inputs().begin(), producer->inputs().end(),
                                      [](const Value* v) { return v->node()->kind() == c10::prim::Constant; });
  if (producer->kind() != c10::prim::Constant && !foldedList)
    return refused(e.consumer,
                   ctx.label(consumer) + QStringLiteral(": argument '%1' is computed by %2, not a folded constant")
                                             .arg(e.argument, ctx.label(producer)));
  if (old->type()->kind() == c10::TypeKind::TensorType)
    return refused(
        e.consumer,
        ctx.label(consumer) +
            QStringLiteral(": argument '%1' is a tensor; only numbers, bools, lists, strings and dtypes can be edited")
                .arg(e.argument));
  QString error;
  auto value = parseValueText(e.value, schema->arguments()[index].type(), &error);
  if (!value)
    return refused(e.consumer, ctx.label(consumer) + QStringLiteral(": argument '%1': %2").arg(e.argument, error));
  Value* fresh = nullptr;
  try {
    torch::jit::WithInsertPoint guard(consumer);
    fresh = ctx.graph().insertConstant(*value);
  } catch (const std::exception& ex) {
    return refused(e.consumer, QStringLiteral("argument '%1': %2").arg(e.argument, firstLine(ex)));
  }
  inheritPlace(fresh->node(), consumer);
  ctx.touch(consumer);
  consumer->replaceInput(index, fresh);
  ctx.removeIfDeadConstant(producer);
  return finish(ctx, base, ids, e, e.consumer);
}

}  // namespace

model::Diagnostics EditResult::diagnostics() const {
  if (ok() || error.isEmpty()) return {};
  return {model::Diagnostic::error(QStringLiteral("edit"), error, {}, node)};
}

EditResult apply(const Edit& edit, const model::Revision& base, model::NodeIdSource& ids) {
  try {
    return std::visit(Overloaded{
                          [&](const DeleteNode& e) { return bypass(edit, e.node, std::nullopt, base, ids); },
                          [&](const BypassNode& e) { return bypass(edit, e.node, e.input, base, ids); },
                          [&](const InsertOp& e) { return insertOp(e, base, ids); },
                          [&](const ReplaceOp& e) { return replaceOp(e, base, ids); },
                          [&](const RewireInput& e) { return rewire(e, base, ids); },
                          [&](const EditConstant& e) { return editConstant(e, base, ids); },
                      },
                      edit);
  } catch (const std::exception& ex) {
    return refused(model::kNoNode, QStringLiteral("the edit failed: %1").arg(firstLine(ex)));
  }
}

QString describe(const Edit& edit) {
  return std::visit(
      Overloaded{
          [](const DeleteNode& e) { return QStringLiteral("Delete node %1").arg(e.node); },
          [](const BypassNode& e) { return QStringLiteral("Bypass node %1 via input %2").arg(e.node).arg(e.input); },
          [](const InsertOp& e) {
            return QStringLiteral("Insert %1 before node %2 input %3").arg(e.op).arg(e.consumer).arg(e.input);
          },
          [](const ReplaceOp& e) { return QStringLiteral("Replace node %1 by %2").arg(e.node).arg(e.op); },
          [](const RewireInput& e) {
            return QStringLiteral("Rewire node %1 input %2 to node %3 output %4")
                .arg(e.consumer)
                .arg(e.input)
                .arg(e.producer)
                .arg(e.output);
          },
          [](const EditConstant& e) {
            return QStringLiteral("Set node %1 %2 = %3").arg(e.consumer).arg(e.argument, e.value);
          },
      },
      edit);
}

namespace {
// "layer1.0.relu (aten::relu)": where a node is and what it does, as a person reads it; the
// internal id only for a node the revision does not hold.
QString nodeName(const model::Revision& base, NodeId id) {
  const QString kind = base.kindOf(id);
  if (kind.isEmpty()) return QStringLiteral("node %1").arg(id);
  const QString path = base.modulePathOf(id);
  return path.isEmpty() ? QStringLiteral("%1 (top level)").arg(kind) : QStringLiteral("%1 (%2)").arg(path, kind);
}
}  // namespace

QString describe(const Edit& edit, const model::Revision& base) {
  const auto name = [&](NodeId id) { return nodeName(base, id); };
  return std::visit(
      Overloaded{
          [&](const DeleteNode& e) { return QStringLiteral("Delete %1").arg(name(e.node)); },
          [&](const BypassNode& e) { return QStringLiteral("Bypass %1 via input %2").arg(name(e.node)).arg(e.input); },
          [&](const InsertOp& e) {
            return QStringLiteral("Insert %1 before %2 input %3").arg(e.op, name(e.consumer)).arg(e.input);
          },
          [&](const ReplaceOp& e) { return QStringLiteral("Replace %1 by %2").arg(name(e.node), e.op); },
          [&](const RewireInput& e) {
            return QStringLiteral("Rewire %1 input %2 to %3 output %4")
                .arg(name(e.consumer))
                .arg(e.input)
                .arg(name(e.producer))
                .arg(e.output);
          },
          [&](const EditConstant& e) {
            return QStringLiteral("Set %1 %2 = %3").arg(name(e.consumer), e.argument, e.value);
          },
      },
      edit);
}

namespace {
QJsonValue idJson(NodeId id) { return QJsonValue(static_cast<qint64>(id)); }
}  // namespace

QJsonObject toJson(const Edit& edit) {
  return std::visit(Overloaded{
                        [](const DeleteNode& e) {
                          return QJsonObject{{"kind", "delete_node"}, {"node", idJson(e.node)}};
                        },
                        [](const BypassNode& e) {
                          return QJsonObject{{"kind", "bypass_node"}, {"node", idJson(e.node)}, {"input", e.input}};
                        },
                        [](const InsertOp& e) {
                          QJsonObject args;
                          for (auto it = e.arguments.begin(); it != e.arguments.end(); ++it)
                            args[it.key()] = it.value();
                          return QJsonObject{{"kind", "insert_op"},
                                             {"consumer", idJson(e.consumer)},
                                             {"input", e.input},
                                             {"op", e.op},
                                             {"arguments", args}};
                        },
                        [](const ReplaceOp& e) {
                          return QJsonObject{{"kind", "replace_op"}, {"node", idJson(e.node)}, {"op", e.op}};
                        },
                        [](const RewireInput& e) {
                          return QJsonObject{{"kind", "rewire_input"},
                                             {"consumer", idJson(e.consumer)},
                                             {"input", e.input},
                                             {"producer", idJson(e.producer)},
                                             {"output", e.output}};
                        },
                        [](const EditConstant& e) {
                          return QJsonObject{{"kind", "edit_constant"},
                                             {"consumer", idJson(e.consumer)},
                                             {"argument", e.argument},
                                             {"value", e.value}};
                        },
                    },
                    edit);
}

std::optional<Edit> fromJson(const QJsonObject& json, QString* error) {
  QString missing;
  auto id = [&](const char* key) -> NodeId {
    const QJsonValue v = json.value(QLatin1String(key));
    if (!v.isDouble() || v.toDouble() < 1) missing = QLatin1String(key);
    return static_cast<NodeId>(v.toInteger());
  };
  auto integer = [&](const char* key) -> int {
    const QJsonValue v = json.value(QLatin1String(key));
    if (!v.isDouble()) missing = QLatin1String(key);
    return v.toInt();
  };
  auto text = [&](const char* key) -> QString {
    const QJsonValue v = json.value(QLatin1String(key));
    if (!v.isString()) missing = QLatin1String(key);
    return v.toString();
  };
  const QString kind = json.value(QLatin1String("kind")).toString();
  std::optional<Edit> out;
  if (kind == QLatin1String("delete_node")) out = DeleteNode{id("node")};
  else if (kind == QLatin1String("bypass_node")) out = BypassNode{id("node"), integer("input")};
  else if (kind == QLatin1String("insert_op")) {
    InsertOp e{id("consumer"), integer("input"), text("op"), {}};
    const QJsonObject args = json.value(QLatin1String("arguments")).toObject();
    for (auto it = args.begin(); it != args.end(); ++it) e.arguments[it.key()] = it.value().toString();
    out = e;
  } else if (kind == QLatin1String("replace_op")) out = ReplaceOp{id("node"), text("op")};
  else if (kind == QLatin1String("rewire_input"))
    out = RewireInput{id("consumer"), integer("input"), id("producer"), integer("output")};
  else if (kind == QLatin1String("edit_constant")) out = EditConstant{id("consumer"), text("argument"), text("value")};
  else {
    if (error) *error = QStringLiteral("unknown edit kind '%1'").arg(kind);
    return std::nullopt;
  }
  if (!missing.isEmpty()) {
    if (error) *error = QStringLiteral("%1 edit: missing or bad '%2'").arg(kind, missing);
    return std::nullopt;
  }
  return out;
}

}  // namespace graft::core::edit
