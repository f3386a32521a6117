#include "core/run/reduce.h"

#include "core/model/job_guard.h"
#include "core/run/culprit.h"

#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/script.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_set>

namespace graft::core::run {

namespace {

using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

struct CutFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The reference run's values, by the graph value that holds them.
class ReferenceValues {
 public:
  ReferenceValues(const model::Revision& rev, const RunResult& run, const std::vector<c10::IValue>& inputs) {
    const auto graph = rev.graph();
    for (size_t i = 1; i < graph->inputs().size() && i - 1 < inputs.size(); ++i)
      values_[graph->inputs()[i]] = inputs[i - 1];
    for (const NodeRecord& r : run.nodes) {
      const Node* n = rev.nodeOf(r.id);
      if (!n || n->owningBlock() != graph->block()) continue;  // top level: one value per node
      for (size_t k = 0; k < n->outputs().size() && k < r.outputs.size(); ++k)
        values_.emplace(n->outputs()[k], r.outputs[k]);
    }
  }
  // A recorded value, or the item of a recorded list or tuple an unpack hands on.
  std::optional<c10::IValue> of(const Value* v) const {
    if (auto it = values_.find(v); it != values_.end()) return it->second;
    const Node* p = v->node();
    if (p->kind() == c10::prim::ListUnpack || p->kind() == c10::prim::TupleUnpack) {
      auto whole = values_.find(p->input());
      if (whole == values_.end()) return std::nullopt;
      const size_t k = size_t(v->offset());
      if (whole->second.isList() && k < whole->second.toListRef().size()) return whole->second.toListRef()[k];
      if (whole->second.isTuple() && k < whole->second.toTupleRef().elements().size())
        return whole->second.toTupleRef().elements()[k];
    }
    return std::nullopt;
  }

 private:
  std::unordered_map<const Value*, c10::IValue> values_;
};

QString describeValue(const model::Revision& rev, const Value* v) {
  const Node* p = v->node();
  if (p->kind() == c10::prim::Param) return QStringLiteral("input %1").arg(QString::fromStdString(v->debugName()));
  if (p->kind() == c10::prim::ListUnpack || p->kind() == c10::prim::TupleUnpack) p = p->input()->node();
  const model::NodeId id = rev.idOf(p);
  const QString where = rev.modulePathOf(id);
  return QStringLiteral("%1%2 output %3").arg(QString::fromStdString(p->kind().toQualString()),
                                              where.isEmpty() ? QString() : QStringLiteral(" at ") + where)
      .arg(v->offset());
}

// A subgraph of the revision's top-level op nodes `chosen` (graph order) computing the outputs of
// `failing`, with every value it reads from outside taken from the reference run.
struct Cut {
  model::RevisionPtr revision;
  std::vector<c10::IValue> boundary;
  QStringList boundaryNames;
};

Cut cut(const model::RevisionPtr& rev, const std::vector<Node*>& chosen, const Node* failing,
        const ReferenceValues& ref, model::NodeIdSource& ids) {
  auto g = std::make_shared<Graph>();
  const Value* self = rev->graph()->inputs()[0];
  std::unordered_map<const Value*, Value*> env;
  env[self] = g->addInput("self")->setType(self->type());
  std::unordered_set<const Node*> inside(chosen.begin(), chosen.end());
  std::unordered_map<const Node*, model::NodeId> carried;
  Cut out;

  std::function<Value*(Value*)> resolve = [&](Value* v) -> Value* {
    if (auto it = env.find(v); it != env.end()) return it->second;
    Node* p = v->node();
    Value* mapped = nullptr;
    const bool opOutside = !inside.count(p) && p->kind() != c10::prim::Param && !p->kind().is_prim();
    const bool unpackOfOp = (p->kind() == c10::prim::ListUnpack || p->kind() == c10::prim::TupleUnpack) &&
                            !p->input()->node()->kind().is_prim();
    if (p->kind() == c10::prim::Param || opOutside || unpackOfOp) {
      auto value = ref.of(v);
      if (!value) throw CutFailed("no reference value for " + describeValue(*rev, v).toStdString());
      if (value->isTensor()) {
        mapped = g->addInput("in" + std::to_string(out.boundary.size()))->setType(v->type());
        out.boundary.push_back(value->toTensor().cpu());
        out.boundaryNames << describeValue(*rev, v);
      } else if (auto constant = torch::jit::tryInsertConstant(*g, *value)) {
        mapped = *constant;
      } else {
        throw CutFailed("a " + v->type()->str() + " value crosses the cut");
      }
    } else if (p->kind().is_prim() && p->blocks().empty()) {
      // Constants, list and tuple constructions, attributes: copied in with what they read.
      Node* copy = g->createClone(p, [&](Value* in) { return resolve(in); });
      g->insertNode(copy);
      carried[copy] = rev->idOf(p);
      for (size_t k = 0; k < p->outputs().size(); ++k) env[p->outputs()[k]] = copy->outputs()[k];
      mapped = env.at(v);
    } else {
      throw CutFailed("the cut would split " + std::string(p->kind().toQualString()));
    }
    env[v] = mapped;
    return mapped;
  };

  for (Node* n : chosen) {
    Node* copy = g->createClone(n, [&](Value* in) { return resolve(in); });
    g->insertNode(copy);
    carried[copy] = rev->idOf(n);
    for (size_t k = 0; k < n->outputs().size(); ++k) env[n->outputs()[k]] = copy->outputs()[k];
  }
  std::vector<Value*> results;
  for (const Value* o : failing->outputs()) results.push_back(env.at(o));
  if (results.size() == 1) g->registerOutput(results[0]);
  else g->registerOutput(g->insertNode(g->createTuple(results))->output());
  out.revision = model::Revision::derived(*rev, g, carried, QStringLiteral("reduced"), ids);
  return out;
}

// Every top-level node that reads, directly or through others, a value `from` computes.
std::unordered_set<const Node*> fedBy(const Node* from) {
  std::unordered_set<const Node*> seen{from};
  std::vector<const Node*> todo{from};
  const auto* top = from->owningBlock();
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    for (const Value* o : n->outputs())
      for (const auto& use : o->uses()) {
        const Node* user = use.user;
        while (user && user->owningBlock() != top) user = user->owningBlock()->owningNode();
        if (user && seen.insert(user).second) todo.push_back(user);
      }
  }
  return seen;
}

}  // namespace

ReduceResult reduceFailure(const model::RevisionPtr& rev, const InputSet& inputs, const CompareOptions& options,
                           model::NodeIdSource& ids, const RunOnB& runOnB) {
  return model::guarded([&]() -> ReduceResult {
    ReduceResult result;
    const auto refuse = [&result](QString why) {
      result.error = std::move(why);
      return result;
    };
    // The reference and the failing side, node by node.
    Executor ea(rev), eb(rev);
    auto [oa, ob] = sideRunOptions(options);
    oa.instrumented = ob.instrumented = oa.keepIntermediates = ob.keepIntermediates = true;
    // Each node's own error: where the failure starts (on this machine when B runs elsewhere).
    oa.local = LocalRun{runOnB ? c10::Device(c10::kCPU) : ob.device, ob.precision};
    const RunResult ra = ea.run(inputs, oa);
    if (!ra.ok) return refuse(QStringLiteral("the reference run failed: ") + ra.error.headline());
    RunResult rb;
    if (runOnB) {
      QString error;
      auto there = runOnB(rev, inputs, true, &error);
      if (!there) return refuse(QStringLiteral("B: ") + error);
      rb = std::move(*there);
    } else {
      rb = eb.run(inputs, ob);
    }
    result.runs = 2;
    if (!rb.ok) return refuse(QStringLiteral("the run at %1 fails outright (%2): there is no difference to reduce")
                                  .arg(options.precisionB.describe(), rb.error.headline()));
    const NodeComparison rows = compareNodes(ra, *rev, rb, *rev, NodeMatching::ByProvenance, options.tol);
    const auto graph = rev->graph();
    Node* failing = nullptr;
    // A failure is a difference beyond tolerance that is also beyond rounding noise: at float16
    // every linear layer leaves a tight tolerance somewhere, and none of them is the failure.
    const double floor = noiseFloor(options);
    const auto failed = [&](const TensorDiff& d) { return !d.allclose && scaledError(d) > floor; };
    // The repro holds the node that introduces the error (the culprit compare names): the failure
    // reduced is the first one it feeds, itself included.
    const auto culprit = findCulprit(rows.nodes, floor);
    Node* culpritNode = culprit ? rev->nodeOf(culprit->nodeA) : nullptr;
    if (culpritNode && culpritNode->owningBlock() != graph->block()) culpritNode = nullptr;
    const std::unordered_set<const Node*> fed = culpritNode ? fedBy(culpritNode) : std::unordered_set<const Node*>{};
    for (const NodeDiff& row : rows.nodes) {
      if (!failed(row.diff)) continue;
      Node* n = rev->nodeOf(row.nodeA);
      if (!n || n->owningBlock() != graph->block()) continue;
      if (culpritNode && !fed.count(n)) continue;
      failing = n;
      break;
    }
    if (!failing && culpritNode) culpritNode = nullptr;  // nothing it feeds fails: reduce the first failure
    if (!failing)
      for (const NodeDiff& row : rows.nodes) {
        if (!failed(row.diff)) continue;
        Node* n = rev->nodeOf(row.nodeA);
        if (n && n->owningBlock() == graph->block()) { failing = n; break; }
      }
    if (!failing) {
      for (const NodeDiff& row : rows.nodes)
        if (failed(row.diff))
          return refuse(
              QStringLiteral("the first failure is inside control flow (%1); reduce works on straight-line graphs")
                  .arg(row.opA));
      result.nothingFails = true;
      return refuse(QStringLiteral("no node differs beyond tolerance (atol %1, rtol %2) and beyond the rounding noise "
                                   "of %3: there is no failure to reduce")
                        .arg(options.tol.atol)
                        .arg(options.tol.rtol)
                        .arg(options.precisionB.describe()));
    }

    std::vector<Node*> order;  // top-level op nodes up to and including the failing one
    for (Node* n : graph->nodes()) {
      if (n->kind().is_prim()) continue;
      order.push_back(n);
      if (n == failing) break;
    }
    const std::vector<c10::IValue> given = withDefaults(*rev, inputs.values);
    const ReferenceValues ref(*rev, ra, given);
    std::vector<c10::IValue> expected;
    for (const Value* o : failing->outputs())
      if (auto v = ref.of(o)) expected.push_back(*v);
    result.candidateNodes = int(order.size()) - 1;

    RunOptions sub;
    sub.device = options.deviceB;
    sub.precision = options.precisionB;
    TensorDiff lastDiff;
    // Whether the subgraph of `chosen` still fails; null cut when it cannot be built.
    const auto fails = [&](const std::vector<Node*>& chosen, int& counter) {
      Cut c;
      try {
        c = cut(rev, chosen, failing, ref, ids);
      } catch (const CutFailed&) {
        return false;
      }
      ++counter;
      ++result.runs;
      RunResult r;
      if (runOnB) {
        QString error;
        auto there = runOnB(c.revision, InputSet{c.boundary, {}}, false, &error);
        // Not an answer about the subgraph (a dropped connection): the job ends with the cause.
        if (!there) throw std::runtime_error(QStringLiteral("B: %1").arg(error).toStdString());
        r = std::move(*there);
      } else {
        r = Executor(c.revision).run(InputSet{c.boundary, {}}, sub);
      }
      if (!r.ok) return false;
      const auto diffs = compareOutputs(expected, r.outputs, options.tol);
      const auto bad = std::find_if(diffs.begin(), diffs.end(), failed);
      if (bad == diffs.end()) return false;
      lastDiff = *bad;
      return true;
    };
    const auto window = [&](size_t from) { return std::vector<Node*>(order.begin() + long(from), order.end()); };
    // Only nodes the failing one depends on matter; the rest are dropped without a run.
    const auto reaching = [&](const std::vector<Node*>& chosen) {
      std::unordered_set<const Node*> needed{failing};
      std::vector<Node*> kept;
      for (auto it = chosen.rbegin(); it != chosen.rend(); ++it) {
        bool feeds = *it == failing;
        for (const Value* o : (*it)->outputs())
          for (const auto& use : o->uses()) {
            const Node* user = use.user;
            while (user && user->owningBlock() != graph->block()) user = user->owningBlock()->owningNode();
            // Through prim nodes (list constructions) to the op that reads them.
            std::vector<const Node*> todo{user};
            while (!todo.empty() && !feeds) {
              const Node* u = todo.back();
              todo.pop_back();
              if (!u) continue;
              if (needed.count(u)) feeds = true;
              else if (u->kind().is_prim())
                for (const Value* uo : u->outputs())
                  for (const auto& uu : uo->uses()) todo.push_back(uu.user);
            }
          }
        if (feeds) {
          needed.insert(*it);
          kept.push_back(*it);
        }
      }
      std::reverse(kept.begin(), kept.end());
      return kept;
    };

    // Bisection: the latest start whose window still fails. The whole prefix fails (it is the
    // full run); the failing node alone is tried first.
    size_t lo = 0, hi = order.size() - 1;
    if (culpritNode)  // windows start at or before the culprit
      hi = size_t(std::find(order.begin(), order.end(), culpritNode) - order.begin());
    if (hi == order.size() - 1 ? fails({failing}, result.bisectionRuns)
                               : fails(reaching(window(hi)), result.bisectionRuns)) {
      lo = hi;
    } else {
      while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (fails(reaching(window(mid)), result.bisectionRuns)) lo = mid;
        else hi = mid;
      }
    }
    std::vector<Node*> chosen = reaching(window(lo));
    // Then each node in turn: dropped (its values fed from the reference) while it still fails.
    for (size_t i = 0; i + 1 < chosen.size();) {
      if (chosen[i] == culpritNode) {
        ++i;
        continue;
      }
      std::vector<Node*> without = chosen;
      without.erase(without.begin() + long(i));
      without = reaching(without);
      const bool keepsCulprit = !culpritNode || std::find(without.begin(), without.end(), culpritNode) != without.end();
      if (without.size() < chosen.size() && keepsCulprit && fails(without, result.removalRuns))
        chosen = std::move(without);
      else ++i;
    }
    if (!fails(chosen, result.removalRuns))
      return refuse(QStringLiteral("no subgraph fails on its own: the failure needs the whole prefix of %1 nodes")
                        .arg(order.size()));
    Cut final = cut(rev, chosen, failing, ref, ids);
    result.subgraph = final.revision;
    result.boundary = std::move(final.boundary);
    result.boundaryNames = std::move(final.boundaryNames);
    for (Node* n : chosen) result.nodes.push_back(rev->idOf(n));
    result.failing = rev->idOf(failing);
    result.failure = lastDiff;
    result.ok = true;
    return result;
  }, [](const QString& why) {
    ReduceResult failed;
    failed.error = QStringLiteral("reduce failed: %1").arg(why);
    return failed;
  });
}

}  // namespace graft::core::run
