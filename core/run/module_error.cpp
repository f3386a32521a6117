#include "core/run/module_error.h"

#include <QtCore/QHash>
#include <QtCore/QSet>
#include <algorithm>
#include <cmath>

namespace graft::core::run {

namespace {

using torch::jit::Node;
using torch::jit::Value;

bool inside(const QString& path, const QString& module) {
  return path == module ||
         (path.size() > module.size() && path.startsWith(module) && path[module.size()] == QLatin1Char('.'));
}

// "a.b.c" -> "a", "a.b", "a.b.c"; nothing for the top level.
QStringList modulesOf(const QString& path) {
  QStringList out;
  if (path.isEmpty()) return out;
  for (qsizetype dot = path.indexOf(QLatin1Char('.')); dot >= 0; dot = path.indexOf(QLatin1Char('.'), dot + 1))
    out << path.left(dot);
  out << path;
  return out;
}

// Where `value` is read: the module paths of the op nodes that read it, looking through prim
// nodes (lists, tuples, control flow) to the op nodes behind them; `returned` when the graph's
// return reads it.
struct Readers {
  QSet<QString> paths;
  bool returned = false;
};

void collectReaders(const model::Revision& rev, const Value* value, Readers& readers, QSet<const Value*>& seen) {
  if (seen.contains(value)) return;
  seen.insert(value);
  const auto* graphReturn = rev.graph()->return_node();
  for (const auto& use : value->uses()) {
    const Node* user = use.user;
    if (user == graphReturn) {
      readers.returned = true;
    } else if (user->kind() == c10::prim::Return) {  // a nested block's result: its owner's output
      if (const Node* owner = user->owningBlock()->owningNode(); owner && use.offset < owner->outputs().size())
        collectReaders(rev, owner->outputs()[use.offset], readers, seen);
    } else if (user->kind().is_prim()) {
      for (const Value* out : user->outputs()) collectReaders(rev, out, readers, seen);
    } else {
      readers.paths.insert(rev.modulePathOf(rev.idOf(user)));
    }
  }
}

bool leaves(const Readers& readers, const QString& module) {
  if (readers.returned) return true;
  return std::any_of(readers.paths.begin(), readers.paths.end(), [&](const QString& p) { return !inside(p, module); });
}

TensorDiff compareValues(const c10::IValue& quantized, const c10::IValue& reference) {
  if (quantized.isTensor() && reference.isTensor())
    return compareTensors(quantized.toTensor(), reference.toTensor(), {});
  const auto diffs = compareOutputs({quantized}, {reference}, {});
  if (diffs.empty()) {
    TensorDiff d;
    d.allclose = false;
    d.note = QStringLiteral("no tensor to compare");
    return d;
  }
  return worstOf(diffs);
}

}  // namespace

std::vector<ModuleOutput> moduleOutputs(const model::Revision& revision, const RunResult& run) {
  QHash<QString, ModuleOutput> taken;
  QHash<model::NodeId, std::vector<Readers>> readersOf;  // per node, per output: computed once
  for (std::size_t r = 0; r < run.nodes.size(); ++r) {
    const NodeRecord& rec = run.nodes[r];
    const QStringList modules = modulesOf(rec.modulePath);
    if (modules.isEmpty()) continue;
    const Node* node = revision.nodeOf(rec.id);
    if (!node) continue;
    auto found = readersOf.find(rec.id);
    if (found == readersOf.end()) {
      std::vector<Readers> perOutput(node->outputs().size());
      for (std::size_t i = 0; i < perOutput.size(); ++i) {
        QSet<const Value*> seen;
        collectReaders(revision, node->outputs()[i], perOutput[i], seen);
      }
      found = readersOf.insert(rec.id, std::move(perOutput));
    }
    for (const QString& module : modules) {
      for (std::size_t i = 0; i < found->size() && i < rec.outputs.size(); ++i) {
        if (!leaves((*found)[i], module)) continue;
        auto it = taken.find(module);
        // A later node replaces the value taken; a node's first leaving output stays.
        if (it == taken.end() || it->record < r) taken.insert(module, {module, r, i});
        break;
      }
    }
  }
  std::vector<ModuleOutput> out(taken.begin(), taken.end());
  std::sort(out.begin(), out.end(), [](const ModuleOutput& a, const ModuleOutput& b) {
    if (a.record != b.record) return a.record < b.record;
    if (a.modulePath.size() != b.modulePath.size()) return a.modulePath.size() > b.modulePath.size();
    return a.modulePath < b.modulePath;
  });
  return out;
}

const ModuleError* ModuleErrorResult::worst() const {
  const ModuleError* w = nullptr;
  for (const auto& m : modules) {
    if (!m.diff.note.isEmpty() || std::isnan(m.diff.sqnrDb)) continue;
    if (!w || m.diff.sqnrDb < w->diff.sqnrDb) w = &m;
  }
  return w;
}

ModuleErrorResult moduleErrors(model::RevisionPtr quantized, model::RevisionPtr floatTwin, const InputSet& inputs,
                               c10::Device device, const std::atomic<bool>* cancel) {
  ModuleErrorResult result;
  try {
    GraphAsWritten asWritten;
    RunOptions options;
    options.device = device;
    options.instrumented = true;
    options.keepIntermediates = true;
    options.cancel = cancel;
    Executor runQ(quantized), runF(floatTwin);
    const RunResult q = runQ.run(inputs, options);
    if (!q.ok) {
      result.error = QStringLiteral("the quantized model failed: ") + q.error.headline();
      return result;
    }
    const RunResult f = runF.run(inputs, options);
    if (!f.ok) {
      result.error = QStringLiteral("the float model failed: ") + f.error.headline();
      return result;
    }
    const auto outQ = moduleOutputs(*quantized, q);
    const auto listF = moduleOutputs(*floatTwin, f);
    QHash<QString, ModuleOutput> outF;
    for (const auto& o : listF) outF.insert(o.modulePath, o);
    QSet<QString> paired;
    for (const auto& o : outQ) {
      const auto it = outF.find(o.modulePath);
      if (it == outF.end()) {
        result.onlyInQuantized << o.modulePath;
        continue;
      }
      paired.insert(o.modulePath);
      const NodeRecord& rq = q.nodes[o.record];
      const NodeRecord& rf = f.nodes[it->record];
      result.modules.push_back(
          {o.modulePath, rq.id, rf.id, rq.op, rf.op, compareValues(rq.outputs[o.output], rf.outputs[it->output])});
    }
    for (const auto& o : listF)
      if (!paired.contains(o.modulePath)) result.onlyInFloat << o.modulePath;
    result.ok = true;
  } catch (const std::exception& e) {
    result.error = QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0);
  }
  return result;
}

QHash<model::NodeId, double> sqnrByNode(const ModuleErrorResult& result, const model::Revision& quantized) {
  QHash<QString, double> byPath;
  for (const auto& m : result.modules)
    if (m.diff.note.isEmpty()) byPath.insert(m.modulePath, m.diff.sqnrDb);
  QHash<model::NodeId, double> out;
  for (model::NodeId id : quantized.opNodeIds()) {
    const QStringList modules = modulesOf(quantized.modulePathOf(id));
    for (auto it = modules.rbegin(); it != modules.rend(); ++it)
      if (const auto found = byPath.constFind(*it); found != byPath.constEnd()) {
        out.insert(id, *found);
        break;
      }
  }
  return out;
}

}  // namespace graft::core::run
