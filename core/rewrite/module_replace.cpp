#include "core/rewrite/module_replace.h"

#include "core/model/dtype_names.h"
#include "core/rewrite/python_rules.h"
#include "core/rewrite/rule_parser.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>

#include <algorithm>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>

#include <unordered_set>

namespace graft::core::rewrite {

using torch::jit::Node;
using torch::jit::Value;

namespace {

bool classMatches(const QString& recordedName, const QString& wanted) {
  // TorchScript records "__torch__.torch.nn.modules.linear.___torch_mangle_3.Linear".
  QString recorded = recordedName;
  static const QRegularExpression mangle(QStringLiteral(R"(___torch_mangle_\d+\.)"));
  recorded.remove(mangle);
  if (recorded.startsWith(QLatin1String("__torch__."))) recorded = recorded.mid(10);
  if (recorded == wanted || recorded.endsWith(QLatin1Char('.') + wanted)) return true;
  const QString shortRecorded = recorded.section(QLatin1Char('.'), -1);
  const QString shortWanted = wanted.section(QLatin1Char('.'), -1);
  // "Linear" names any Linear; "nn.Linear" and "torch.nn.Linear", as Python code writes them,
  // name torch.nn's (recorded as torch.nn.modules.linear.Linear); another qualified name must
  // agree where both are qualified.
  if (!wanted.contains(QLatin1Char('.')) || !recorded.contains(QLatin1Char('.'))) return shortRecorded == shortWanted;
  const bool publicTorchName = wanted.startsWith(QLatin1String("nn.")) || wanted.startsWith(QLatin1String("torch.nn."));
  return publicTorchName && recorded.startsWith(QLatin1String("torch.nn.")) && shortRecorded == shortWanted;
}

// The old module's name for a parameter constant: "self.fc.weight" (a frozen .pt) or
// "p_fc_weight" (a program's placeholder) under instance "fc" is "weight".
QString parameterName(const QString& debugName, const QString& path) {
  QString name = debugName;
  static const QRegularExpression suffix(QStringLiteral(R"(\.\d+$)"));
  name.remove(suffix);
  if (name.startsWith(QLatin1String("self."))) {
    name = name.mid(5);
    if (name.startsWith(path + QLatin1Char('.'))) return name.mid(path.size() + 1);
    return {};
  }
  static const QRegularExpression placeholder(QStringLiteral(R"(^(p|b|c)_)"));
  if (placeholder.match(name).hasMatch()) {
    name = name.mid(2);
    const QString flat = QString(path).replace(QLatin1Char('.'), QLatin1Char('_')) + QLatin1Char('_');
    if (name.startsWith(flat)) return name.mid(flat.size());
  }
  return {};
}

QString irName(const QString& name) {
  QString out = name;
  out.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_]")), QStringLiteral("_"));
  if (out.isEmpty() || out[0].isDigit()) out.prepend(QLatin1Char('p'));
  return out;
}

bool isTensorConstant(const Value* v) {
  if (v->node()->kind() != c10::prim::Constant) return false;
  auto iv = torch::jit::toIValue(v);
  return iv && iv->isTensor();
}

struct Instance {
  QString path, type;
  std::vector<Node*> nodes;  // graph order
};

struct Cut {
  QString pattern;                 // IR text
  QJsonArray args;                 // [{name, kind, old, shape, dtype}]
  std::vector<at::Tensor> params;  // in the order of the "param" args
  QStringList paramNames;
  QStringList argNames;
  model::NodeId anchor = model::kNoNode;
  QString skip;                    // why this instance cannot be cut out
};

Cut cutOut(const model::Revision& rev, const Instance& inst) {
  Cut cut;
  std::unordered_set<Node*> inside;
  for (Node* n : inst.nodes)
    if (n->kind() != c10::prim::Constant) inside.insert(n);
  auto pg = std::make_shared<torch::jit::Graph>();
  std::unordered_map<Value*, Value*> vmap;
  int activations = 0;
  std::function<Value*(Value*)> mapValue = [&](Value* v) -> Value* {
    if (auto it = vmap.find(v); it != vmap.end()) return it->second;
    Node* p = v->node();
    if (isTensorConstant(v)) {
      const QString old = parameterName(QString::fromStdString(v->debugName()), inst.path);
      const QString name = old.isEmpty() ? QStringLiteral("const%1").arg(cut.params.size()) : old;
      Value* in = pg->addInput(irName(name).toStdString());
      cut.args.append(QJsonObject{{"name", irName(name)}, {"kind", "param"}, {"old", name}});
      cut.argNames << irName(name);
      cut.params.push_back(torch::jit::toIValue(v)->toTensor());
      cut.paramNames << name;
      return vmap[v] = in;
    }
    bool constantList = p->kind() == c10::prim::ListConstruct;
    for (Value* i : p->inputs())
      constantList = constantList && i->node()->kind() == c10::prim::Constant && !isTensorConstant(i);
    if (p->kind() == c10::prim::Constant || constantList) {
      Node* c = pg->createClone(p, mapValue);
      pg->insertNode(c);
      return vmap[v] = c->outputs()[v->offset()];
    }
    const QString name = activations == 0 ? QStringLiteral("input") : QStringLiteral("input_%1").arg(activations);
    ++activations;
    Value* in = pg->addInput(name.toStdString());
    QJsonObject arg{{"name", name}, {"kind", "input"}, {"old", name}};
    if (auto t = v->type()->cast<c10::TensorType>()) {
      if (auto sizes = t->sizes().concrete_sizes()) {
        QJsonArray shape;
        for (auto s : *sizes) shape.append(qint64(s));
        arg.insert(QStringLiteral("shape"), shape);
      }
      if (t->scalarType())
        arg.insert(QStringLiteral("dtype"), QString::fromStdString(c10::toString(*t->scalarType())).toLower());
    }
    cut.args.append(arg);
    cut.argNames << name;
    return vmap[v] = in;
  };
  for (Node* n : inst.nodes) {
    if (!inside.count(n)) continue;
    if (!n->blocks().empty()) {
      cut.skip = QStringLiteral("it holds control flow (%1)").arg(QString::fromStdString(n->kind().toQualString()));
      return cut;
    }
    Node* c = pg->createClone(n, mapValue);
    pg->insertNode(c);
    for (size_t i = 0; i < n->outputs().size(); ++i) vmap[n->output(i)] = c->output(i);
  }
  std::vector<Value*> leaving;
  for (Node* n : inst.nodes) {
    if (!inside.count(n)) continue;
    for (Value* out : n->outputs()) {
      bool outside = false;
      for (const auto& use : out->uses()) outside = outside || !inside.count(use.user);
      if (outside) leaving.push_back(out);
    }
  }
  if (leaving.size() != 1) {
    cut.skip =
        QStringLiteral("its ops hand %1 values to the rest of the graph; a replacement gives one").arg(leaving.size());
    return cut;
  }
  if (activations == 0) {
    cut.skip = QStringLiteral("it reads no input");
    return cut;
  }
  pg->registerOutput(vmap.at(leaving[0]));
  cut.anchor = rev.idOf(leaving[0]->node());
  torch::jit::EliminateDeadCode(pg);
  std::function<void(torch::jit::Block*)> plain = [&](torch::jit::Block* b) {
    for (Value* v : b->inputs())
      if (v->type()->cast<c10::TensorType>()) v->setType(c10::TensorType::get());
    for (Node* n : b->nodes())
      for (Value* v : n->outputs())
        if (v->type()->cast<c10::TensorType>()) v->setType(c10::TensorType::get());
  };
  plain(pg->block());
  cut.pattern = QString::fromStdString(pg->toString(false));
  return cut;
}

}  // namespace

ModuleReplacement parseModuleReplacement(const QString& spec, const QStringList& params) {
  ModuleReplacement r;
  static const QRegularExpression form(QStringLiteral(R"(^([^=]+)=(.+\.py):([A-Za-z_]\w*)$)"));
  const auto m = form.match(spec);
  if (!m.hasMatch()) {
    r.error = QStringLiteral("--replace-module takes CLASS=FILE.py:NewModule, not '%1'").arg(spec);
    return r;
  }
  r.className = m.captured(1).trimmed();
  r.file = m.captured(2);
  r.newClass = m.captured(3);
  for (const QString& p : params) {
    const int eq = int(p.indexOf(QLatin1Char('=')));
    if (eq <= 0 || eq == p.size() - 1) {
      r.error =
          QStringLiteral("--param takes NEW=OLD (NewModule's parameter name = the old module's), not '%1'").arg(p);
      return r;
    }
    r.params.insert(p.left(eq).trimmed(), p.mid(eq + 1).trimmed());
  }
  if (!QFileInfo(r.file).isFile()) r.error = QStringLiteral("no such Python file: %1").arg(r.file);
  return r;
}

ModuleReplacementPlan planModuleReplacement(const model::Document& document, const ModuleReplacement& rq) {
  ModuleReplacementPlan plan;
  const auto rev = document.current();
  auto graph = rev->graph();
  QVector<Instance> instances;
  QHash<QString, int> byPath;
  for (Node* n : graph->nodes()) {
    const auto id = rev->idOf(n);
    if (id == model::kNoNode) continue;
    const auto& place = rev->placeOf(id);
    for (qsizetype k = 0; k < place.modulePath.size() && k < place.moduleTypes.size(); ++k) {
      if (!classMatches(place.moduleTypes[k], rq.className)) continue;
      const QString path = place.modulePath.mid(0, k + 1).join(QLatin1Char('.'));
      if (!byPath.contains(path)) {
        byPath.insert(path, int(instances.size()));
        instances.push_back({path, place.moduleTypes[k], {}});
      }
      instances[byPath.value(path)].nodes.push_back(n);
      break;
    }
  }
  if (instances.isEmpty()) {
    // Say which classes there are, by the short names a user writes.
    QStringList classes;
    for (Node* n : graph->nodes())
      for (const QString& type : rev->placeOf(rev->idOf(n)).moduleTypes) {
        const QString name = type.section(QLatin1Char('.'), -1);
        if (!name.isEmpty() && !classes.contains(name)) classes << name;
      }
    std::sort(classes.begin(), classes.end());
    plan.error = RuleError{
        rq.file, 0, 0,
        classes.isEmpty()
            ? QStringLiteral("the model has no module of class %1 (it records no module classes)").arg(rq.className)
            : QStringLiteral("the model has no module of class %1; its module classes: %2")
                  .arg(rq.className, classes.join(QStringLiteral(", ")))};
    return plan;
  }
  // Cut every instance out of the graph; those that cannot be are skipped with the reason.
  QVector<Cut> cuts;
  QVector<int> kept;
  c10::Dict<std::string, at::Tensor> tensors;
  QJsonArray requested;
  auto skip = [&](const QString& path, const QString& why, model::NodeId node) {
    plan.diagnostics.push_back(model::Diagnostic::warning(
        QStringLiteral("rewrite"), QStringLiteral("replace %1 at %2: skipped: %3").arg(rq.className, path, why), {},
        node));
  };
  for (const Instance& inst : instances) {
    Cut cut = cutOut(*rev, inst);
    if (!cut.skip.isEmpty()) {
      skip(inst.path, cut.skip, rev->idOf(inst.nodes.front()));
      continue;
    }
    const int index = int(requested.size());
    for (int k = 0; k < int(cut.params.size()); ++k)
      tensors.insert(QStringLiteral("%1/%2").arg(index).arg(cut.paramNames[k]).toStdString(), cut.params[size_t(k)]);
    requested.append(QJsonObject{{"path", inst.path}, {"args", cut.args}});
    kept.push_back(int(cuts.size()));
    cuts.push_back(cut);
  }
  if (cuts.isEmpty()) return plan;
  QTemporaryDir work;
  if (!work.isValid()) {
    plan.error = RuleError{rq.file, 0, 0, QStringLiteral("cannot make a temporary folder")};
    return plan;
  }
  // The old parameters as raw bytes with their shape and dtype (read with torch.frombuffer).
  QJsonObject tensorIndex;
  {
    int n = 0;
    for (auto it = tensors.begin(); it != tensors.end(); ++it, ++n) {
      const at::Tensor t = it->value().detach().to(at::kCPU).contiguous();
      const QString file = QDir(work.path()).filePath(QStringLiteral("param%1.bin").arg(n));
      QFile f(file);
      const qint64 bytes = qint64(t.numel() * t.element_size());
      if (!f.open(QIODevice::WriteOnly) || f.write(static_cast<const char*>(t.data_ptr()), bytes) != bytes) {
        plan.error = RuleError{rq.file, 0, 0, QStringLiteral("cannot write %1").arg(file)};
        return plan;
      }
      QJsonArray shape;
      for (auto d : t.sizes()) shape.append(qint64(d));
      tensorIndex.insert(QString::fromStdString(it->key()),
                         QJsonObject{{"file", file},
                                     {"shape", shape},
                                     {"dtype", QString::fromLatin1(c10::toString(t.scalar_type())).toLower()}});
    }
  }
  QJsonObject paramMap;
  for (auto it = rq.params.begin(); it != rq.params.end(); ++it) paramMap.insert(it.key(), it.value());
  const QString format =
      document.format() == QLatin1String("pt2") ? QStringLiteral("pt2") : QStringLiteral("torchscript");
  const QJsonObject request{{"class", rq.newClass},
                            {"old_class", instances.front().type},
                            {"param_map", paramMap},
                            {"tensors", tensorIndex},
                            {"format", format},
                            {"instances", requested}};
  const QJsonObject json = runPythonChild(QStringLiteral("module"), rq.file, work.path(), request, plan.error);
  if (plan.error.isError()) return plan;
  const QJsonArray modules = json.value(QLatin1String("modules")).toArray();
  for (int i = 0; i < cuts.size() && i < modules.size(); ++i) {
    const Cut& cut = cuts[i];
    const QJsonObject m = modules[i].toObject();
    const QString path = m.value(QLatin1String("path")).toString();
    if (!m.value(QLatin1String("ok")).toBool()) {
      skip(path, m.value(QLatin1String("reason")).toString(), cut.anchor);
      continue;
    }
    QString why;
    const QString replacement = format == QLatin1String("pt2")
                                    ? pt2FunctionIr(m.value(QLatin1String("pt2")).toString(), cut.argNames, why)
                                    : tsFunctionIr(m.value(QLatin1String("ts")).toString(), cut.argNames, why);
    if (replacement.isEmpty()) {
      skip(path, why, cut.anchor);
      continue;
    }
    const QString id = QStringLiteral("replace-%1").arg(irName(rq.className.section(QLatin1Char('.'), -1)));
    QString pattern = cut.pattern, body = replacement;
    QStringList conditions;
    try {
      liftPatternConstants(pattern, body, conditions);
    } catch (const std::exception& e) {
      skip(path, QString::fromUtf8(e.what()), cut.anchor);
      continue;
    }
    QString text = QStringLiteral("id: %1\ntitle: %2 as %3\n[pattern]\n%4[replacement]\n%5")
                       .arg(id, rq.className, rq.newClass, pattern, body);
    if (!conditions.isEmpty())
      text += QStringLiteral("[condition]\n") + conditions.join(QLatin1Char('\n')) + QLatin1Char('\n');
    auto parsed = parseRule(text, rq.file);
    if (!parsed.ok()) {
      skip(path, parsed.error.message, cut.anchor);
      continue;
    }
    plan.steps.push_back(Step::ofRuleAt(parsed.rule, cut.anchor));
  }
  return plan;
}

}  // namespace graft::core::rewrite
