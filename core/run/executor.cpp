#include "core/run/executor.h"
#include "core/run/outside_effects.h"
#include "core/run/unknown_ops.h"
#include "core/run/dimension_check.h"
#include "core/run/threads.h"

#include "core/model/job_guard.h"
#include "core/model/module_path.h"
#include "core/run/device_forward.h"
#include "core/run/device_remap.h"
#include "core/run/dtype_follow.h"
#include "core/run/precision_relax.h"

#include <torch/csrc/jit/api/function_impl.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <unordered_set>

namespace graft::core::run {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;
namespace prim = c10::prim;

// GraphOptimizerEnabledGuard's thread-local switch, without its header in executor.h.
GraphAsWritten::GraphAsWritten() : previous_(torch::jit::getGraphExecutorOptimize()) {
  torch::jit::setGraphExecutorOptimize(false);
}
GraphAsWritten::~GraphAsWritten() { torch::jit::setGraphExecutorOptimize(previous_); }

QString RunError::headline() const {
  if (node == model::kNoNode) return message;
  QString where = QStringLiteral("node %1").arg(node);
  if (!modulePath.isEmpty()) where += QStringLiteral(", module ") + modulePath;
  return QStringLiteral("%1 (%2) failed: %3").arg(op, where, message);
}

model::Diagnostic RunError::diagnostic(const QString& job) const {
  return model::Diagnostic::error(job, headline(), {}, node);
}

namespace {

enum class StepKind { Op, Constant, GetAttr, ListConstruct, TupleConstruct, ListUnpack, TupleUnpack,
                      DictConstruct, If, Loop, PassThrough, Uninitialized, Enter, Exit };

// A failure inside a node, carried out of nested blocks to Executor::run.
struct NodeFailure {
  RunError error;
};

QString errorText(const std::string& what) { return model::firstLines(what); }

// Constant tensors the graph writes in place, through views or not: a static-cache LM's KV cache
// lives in lifted constants that index_copy_ fills. Every revision shares its constants.
std::vector<at::Tensor> constantsWrittenInPlace(const torch::jit::Block* block) {
  std::vector<at::Tensor> out;
  std::unordered_set<const c10::TensorImpl*> seen;
  std::function<void(const torch::jit::Block*)> walk = [&](const torch::jit::Block* b) {
    for (const Node* n : b->nodes()) {
      for (const auto* inner : n->blocks()) walk(inner);
      const auto* schema = n->maybeSchema();
      if (!schema) continue;
      for (size_t i = 0; i < schema->arguments().size() && i < n->inputs().size(); ++i) {
        const auto* alias = schema->arguments()[i].alias_info();
        if (!alias || !alias->isWrite()) continue;
        const Value* v = n->input(i);
        // Back through ops whose result aliases their first argument (views, in-place ops).
        while (v->node()->kind() != c10::prim::Constant) {
          const auto* producer = v->node()->maybeSchema();
          if (!producer || producer->returns().empty() || !producer->returns()[0].alias_info() ||
              v->node()->inputs().empty())
            break;
          v = v->node()->input(0);
        }
        if (v->node()->kind() != c10::prim::Constant || !v->type()->cast<c10::TensorType>()) continue;
        const at::Tensor t = torch::jit::toIValue(v)->toTensor();
        if (seen.insert(t.unsafeGetTensorImpl()).second) out.push_back(t);
      }
    }
  };
  walk(block);
  return out;
}

// Revisions share their constants (a graph copy shares its weights), so two runs that write the
// same constants at once (a Compare and the History ledger on a static KV cache) would see each
// other's writes. Runs that write constants take turns; every other run is unaffected.
std::recursive_mutex& writtenConstantsTurn() {
  static std::recursive_mutex turn;
  return turn;
}

// Keeps a run from changing the program: the constants it writes are put back as they were when
// the guard ends; `detach` first copies the results that alias them.
class ConstantsRestored {
 public:
  ConstantsRestored(const std::vector<at::Tensor>& written, bool& active)
      : turn_(writtenConstantsTurn()), active_(active) {
    active_ = true;
    for (const auto& t : written) saved_.emplace_back(t, t.clone());
  }
  ~ConstantsRestored() {
    torch::NoGradGuard noGrad;
    for (auto& [live, before] : saved_) live.copy_(before);
    active_ = false;
  }
  void detach(RunResult& result) const {
    auto copyIfAliased = [&](c10::IValue& v) {
      if (!v.isTensor()) return;
      for (const auto& [live, _] : saved_)
        if (v.toTensor().is_alias_of(live)) v = v.toTensor().clone();
    };
    for (auto& v : result.outputs) copyIfAliased(v);
    for (auto& rec : result.nodes)
      for (auto& v : rec.outputs) copyIfAliased(v);
  }

 private:
  std::lock_guard<std::recursive_mutex> turn_;  // held from the snapshot until the constants are back
  bool& active_;
  std::vector<std::pair<at::Tensor, at::Tensor>> saved_;
};

}  // namespace

struct Executor::Plan {
  struct BlockPlan;
  struct Step {
    Node* node = nullptr;
    StepKind kind = StepKind::Op;
    torch::jit::Operation op{nullptr};
    std::shared_ptr<torch::jit::GraphFunction> fallback;  // nodes without an Operation
    torch::jit::Function* method = nullptr;                // a `with` block's __enter__ or __exit__
    c10::IValue constant;
    std::vector<int> in, out;
    std::vector<int> freeAfter;  // top-level slots whose last use is this step
    std::vector<bool> moveIn;    // per input: its last use, so hand it over as the interpreter does
    std::vector<std::unique_ptr<BlockPlan>> blocks;
    bool record = false;  // an op node (kind not prim::): recorded and timed
    bool vararg = false;  // aten::format and the like: the interpreter passes the input count last
    // Per output: a later in-place op (relu_, add_) overwrites it, so a kept copy must be taken
    // now, or the record would show the value after that op ran.
    std::vector<bool> mutatedLater;
    std::vector<int> followedDtypes;  // inputs whose recorded float32 follows the run's dtype (dtype_follow.h)
    model::NodeId id = model::kNoNode;
    QString opName, modulePath;
  };
  struct BlockPlan {
    std::vector<Step> steps;
    std::vector<int> inputs, outputs;
  };

  BlockPlan top;
  std::unordered_map<const Value*, int> slotOf;
  std::vector<c10::IValue> env;
  c10::Device cacheDevice = c10::Device(c10::kCPU);
  std::optional<c10::ScalarType> cacheDtype;
  Casts cacheCasts = Casts::Follow;
  std::unordered_map<const c10::TensorImpl*, at::Tensor> deviceCache;  // weights moved or cast
  std::vector<std::optional<c10::ScalarType>> localDtype;  // per slot: its dtype in the local runs
  size_t numUserInputs = 0;
  QStringList inputNames;
  std::vector<at::Tensor> writtenConstants;  // restored after every run
  bool restoring = false;                     // inside a run that will restore them

  int slot(const Value* v) {
    auto it = slotOf.find(v);
    if (it != slotOf.end()) return it->second;
    const int s = int(slotOf.size());
    slotOf[v] = s;
    return s;
  }

  // aten's naming convention for ops that write into their first argument.
  static bool isInPlace(const Node* n) {
    if (!n->kind().is_aten()) return false;
    const std::string name = n->kind().toUnqualString();
    return name.size() > 1 && name.back() == '_' && name.rfind("__", 0) != 0;
  }

  static std::shared_ptr<torch::jit::GraphFunction> oneNodeFunction(Node* node) {
    auto g = std::make_shared<torch::jit::Graph>();
    std::unordered_map<Value*, Value*> map;
    for (Value* in : node->inputs()) map[in] = g->addInput()->setType(in->type());
    Node* copy = g->createClone(node, [&](Value* v) { return map.at(v); });
    g->insertNode(copy);
    if (copy->outputs().size() == 1) {
      g->registerOutput(copy->output());
    } else {
      // A function returns one value: none (SetAttr) or several come back packed in a tuple.
      g->registerOutput(g->insertNode(g->createTuple(copy->outputs()))->output());
    }
    return std::make_shared<torch::jit::GraphFunction>("graft_node", g, nullptr);
  }

  void build(const model::Revision& rev, Block* block, BlockPlan& plan) {
    for (Value* v : block->inputs()) plan.inputs.push_back(slot(v));
    for (Node* n : block->nodes()) {
      Step s;
      s.node = n;
      s.id = rev.idOf(n);
      s.opName = QString::fromStdString(n->kind().toQualString());
      s.modulePath = rev.modulePathOf(s.id);
      s.record = !s.opName.startsWith(QLatin1String("prim::"));
      for (Value* v : n->inputs()) s.in.push_back(slot(v));
      for (Value* v : n->outputs()) {
        s.out.push_back(slot(v));
        bool mutated = false;
        for (const auto& use : v->uses()) mutated = mutated || (use.offset == 0 && isInPlace(use.user));
        s.mutatedLater.push_back(mutated);
      }
      const auto k = n->kind();
      if (k == prim::Constant) {
        s.kind = StepKind::Constant;
        s.constant = torch::jit::toIValue(n->output()).value_or(c10::IValue());
      } else if (k == prim::GetAttr) s.kind = StepKind::GetAttr;
      else if (k == prim::ListConstruct) s.kind = StepKind::ListConstruct;
      else if (k == prim::TupleConstruct) s.kind = StepKind::TupleConstruct;
      else if (k == prim::ListUnpack) s.kind = StepKind::ListUnpack;
      else if (k == prim::TupleUnpack) s.kind = StepKind::TupleUnpack;
      else if (k == prim::DictConstruct) s.kind = StepKind::DictConstruct;
      else if (k == prim::If) s.kind = StepKind::If;
      else if (k == prim::Loop) s.kind = StepKind::Loop;
      else if (k == prim::unchecked_cast) s.kind = StepKind::PassThrough;
      else if (k == prim::Uninitialized) s.kind = StepKind::Uninitialized;
      else if (k == prim::Enter || k == prim::Exit) {
        // A `with` block: the interpreter pairs Enter and Exit on its own stack, so they cannot
        // run as one-node graphs; the context's methods are called here, in the run's thread
        // (grad mode, which torch.no_grad() sets, is per thread and restored after the run).
        s.kind = k == prim::Enter ? StepKind::Enter : StepKind::Exit;
        if (auto cls = n->input(0)->type()->cast<c10::ClassType>())
          s.method = cls->findMethod(k == prim::Enter ? "__enter__" : "__exit__");
      } else {
        s.kind = StepKind::Op;
        const auto* schema = n->maybeSchema();
        s.vararg = schema && schema->is_vararg();
        s.followedDtypes = followedDtypeInputs(n, rev);
        try {
          // aten::warn has an Operation that only says "implemented directly in the interpreter".
          if (k == c10::aten::warn) throw std::runtime_error("interpreter-only");
          s.op = n->getOperation();
        } catch (const std::exception&) {
          // No registered Operation (interpreter-only prims such as CreateObject, SetAttr; libtorch
          // 2.x throws a jit::ErrorReport here): run the node as a one-node graph.
          s.fallback = oneNodeFunction(n);
        }
      }
      for (Block* b : n->blocks()) {
        s.blocks.push_back(std::make_unique<BlockPlan>());
        build(rev, b, *s.blocks.back());
      }
      plan.steps.push_back(std::move(s));
    }
    for (Value* v : block->outputs()) plan.outputs.push_back(slot(v));
  }

  // Frees every value after its last use, as the interpreter (and fx's generated code) does, so a
  // run without kept intermediates holds no more memory than the fast path. Per block: a value
  // goes after the step of its own block that uses it last, a use inside a nested block counting
  // at the node that holds that block (a loop body runs again, an If's outputs are copied out
  // after it); a value no node reads (a view such as select's result, an in-place op's returned
  // alias, an unused second output) goes right after the step that made it, where it would
  // otherwise keep its storage alive to the end of the run. The graph's outputs stay.
  // Whether `v` is made inside `block` (by one of its nodes, or is one of its inputs), at any depth.
  static bool definedWithin(const Value* v, const Block* block) {
    for (const Block* b = v->node()->owningBlock(); b; b = b->owningNode() ? b->owningNode()->owningBlock() : nullptr)
      if (b == block) return true;
    return v->node() == block->param_node();
  }

  void planFrees(Block* block, BlockPlan& plan, bool topLevel) {
    std::unordered_map<const Node*, size_t> indexOf;
    size_t index = 0;
    for (Node* n : block->nodes()) indexOf[n] = index++;
    // The step of this block that holds `user` (the user itself or the node around its block).
    auto stepOf = [&](Node* user) -> std::optional<size_t> {
      for (Node* n = user; n; n = n->owningBlock() ? n->owningBlock()->owningNode() : nullptr) {
        if (n->owningBlock() == block) return indexOf.at(n);
      }
      return std::nullopt;
    };
    std::unordered_set<const Value*> outputs(block->outputs().begin(), block->outputs().end());
    auto plan1 = [&](Value* v, size_t defined) {
      if (outputs.count(v)) return;  // read by the node around this block, or the run's result
      size_t last = defined;
      for (const auto& use : v->uses())
        if (const auto at = stepOf(use.user)) last = std::max(last, *at);
      plan.steps[last].freeAfter.push_back(slot(v));
    };
    for (Node* n : block->nodes()) {
      const size_t i = indexOf.at(n);
      for (Value* v : n->outputs()) plan1(v, i);
      // What a nested block makes and hands out stays in its slot until the node around it has
      // read it. A value it hands out from further out (a loop's `true` condition, shared by the
      // next loop) is freed by the block that made it, after its last use there.
      for (Block* sub : n->blocks())
        for (Value* v : sub->outputs())
          if (definedWithin(v, sub)) plan.steps[i].freeAfter.push_back(slot(v));
    }
    if (topLevel) {
      // The graph's inputs: after their last use (the caller may still hold them).
      for (Value* v : block->inputs()) {
        if (outputs.count(v) || v->uses().empty()) continue;
        size_t last = 0;
        for (const auto& use : v->uses())
          if (const auto at = stepOf(use.user)) last = std::max(last, *at);
        plan.steps[last].freeAfter.push_back(slot(v));
      }
    }
    for (Step& st : plan.steps) {
      std::sort(st.freeAfter.begin(), st.freeAfter.end());
      st.freeAfter.erase(std::unique(st.freeAfter.begin(), st.freeAfter.end()), st.freeAfter.end());
      st.moveIn.assign(st.in.size(), false);
      for (size_t b = 0; b < st.blocks.size(); ++b) planFrees(st.node->blocks()[b], *st.blocks[b], false);
      if (st.kind != StepKind::Op) continue;
      for (size_t k = 0; k < st.in.size(); ++k) {
        const bool last = std::find(st.freeAfter.begin(), st.freeAfter.end(), st.in[k]) != st.freeAfter.end();
        const bool usedLater = std::find(st.in.begin() + k + 1, st.in.end(), st.in[k]) != st.in.end();
        st.moveIn[k] = last && !usedLater;
      }
    }
  }

  // A weight or constant where the run wants it: on its device, floating ones at its dtype.
  // Cast once per tensor while the device and dtype stay the same.
  // Under Casts::Follow float32's extremes become the dtype's (dtype_follow.h).
  at::Tensor prepared(const at::Tensor& t, c10::Device device, std::optional<c10::ScalarType> dtype, Casts casts) {
    const bool cast = dtype && t.defined() && t.is_floating_point() && t.scalar_type() != *dtype;
    if (t.device() == device && !cast) return t;
    if (device != cacheDevice || dtype != cacheDtype || casts != cacheCasts) {
      deviceCache.clear();
      cacheDevice = device;
      cacheDtype = dtype;
      cacheCasts = casts;
    }
    auto it = deviceCache.find(t.unsafeGetTensorImpl());
    if (it != deviceCache.end()) return it->second;
    at::Tensor moved = !cast                     ? t.to(device)
                       : casts == Casts::Follow ? castWithExtremes(t.to(device), *dtype)
                                                : t.to(device, *dtype);
    deviceCache.emplace(t.unsafeGetTensorImpl(), moved);
    return moved;
  }

  c10::IValue constantOn(const c10::IValue& v, const RunOptions& o) {
    if (v.isDevice()) return onRunDevice(v, o.device);  // the program's device, remapped (device_remap.h)
    if ((o.device.is_cpu() && !o.precision.dtype) || !v.isTensor()) return v;
    return prepared(v.toTensor(), o.device, o.precision.dtype, o.precision.casts);
  }

  // Runs the node's operation on `stack` (inputs in, outputs out).
  void invoke(Step& s, torch::jit::Stack& stack) {
    if (s.vararg && !s.fallback) stack.push_back(static_cast<int64_t>(s.in.size()));
    if (s.fallback) {
      s.fallback->run(stack);
      if (s.out.size() != 1 && stack.size() == 1 && stack.back().isTuple()) {
        const auto items = stack.back().toTupleRef().elements().vec();
        stack.assign(items.begin(), items.end());
      }
    } else {
      s.op(stack);
    }
  }

  // Applies `precision` to the node's floating inputs (precision.h, NodePrecision) and, under
  // Casts::Follow, to the dtypes and extremes the capture recorded (dtype_follow.h). Returns what
  // it made follow, empty when nothing.
  static QString adaptInputs(const Step& s, const Precision& precision, torch::jit::Stack& stack, c10::Device device) {
    QString followed;
    if (precision.dtype && precision.casts == Casts::Follow) {
      for (int k : s.followedDtypes)
        if (size_t(k) < stack.size() && stack[k].isInt() && stack[k].toInt() == int64_t(c10::kFloat)) {
          stack[k] = int64_t(*precision.dtype);
          followed = QStringLiteral("recorded float32 follows %1").arg(precision.describe());
        }
      if (narrowerThanFloat32(*precision.dtype))
        for (auto& v : stack)
          if (v.isDouble() && extremeAt(v.toDouble(), *precision.dtype) != v.toDouble()) {
            v = extremeAt(v.toDouble(), *precision.dtype);
            followed = QStringLiteral("float32's extreme as %1's").arg(precision.describe());
          }
    }
    switch (nodePrecision(precision, s.opName)) {
      case NodePrecision::AsReceived: break;
      // As torch.autocast: float64 is left as it is (a node kept in float64 stays there).
      case NodePrecision::RunDtype:
        for (auto& v : stack) v = castFloating(v, precision.dtype, device, false, /*leaveFloat64=*/true);
        break;
      case NodePrecision::Float32:
        if (firstLowerPrecisionDtype(stack))
          for (auto& v : stack) v = castFloating(v, c10::kFloat, device, false, /*leaveFloat64=*/true);
        break;
    }
    if (precision.tf32 == Tf32::Emulate && tf32Rounds(s.opName))
      for (auto& v : stack)
        if (v.isTensor() && v.toTensor().defined()) v = roundToTf32(v.toTensor());
    return followed;
  }

  // The node once more on copies of its inputs at the local precision and device. Each input
  // takes the dtype the local run of its producer gave it (autocast's float32 ops hand on
  // float32); weights, constants and inputs the precision's dtype.
  void runLocal(Step& s, const LocalRun& local, NodeRecord& rec) {
    torch::jit::Stack stack;
    for (int i : s.in) {
      const auto dtype = localDtype[size_t(i)] ? localDtype[size_t(i)] : local.precision.dtype;
      stack.push_back(onRunDevice(castFloating(env[i], dtype, local.device, /*fresh=*/true), local.device));
    }
    try {
      adaptInputs(s, local.precision, stack, local.device);
      relaxForPrecision(s.opName, local.precision, stack, local.device, nullptr);
      invoke(s, stack);
      for (size_t k = 0; k < stack.size() && k < s.out.size(); ++k)
        if (stack[k].isTensor() && stack[k].toTensor().defined() && stack[k].toTensor().is_floating_point())
          localDtype[size_t(s.out[k])] = stack[k].toTensor().scalar_type();
      rec.localOutputs = std::move(stack);
    } catch (const c10::Error& e) {
      rec.localError = errorText(e.what_without_backtrace());
    } catch (const std::exception& e) {
      rec.localError = errorText(e.what());
    }
  }

  void fail(const Step& s, const std::string& what) {
    throw NodeFailure{RunError{errorText(what), s.id, s.opName, s.modulePath}};
  }

  void runBlock(BlockPlan& b, const RunOptions& o, RunResult& result) {
    for (Step& s : b.steps) {
      if (o.cancel && o.cancel->load(std::memory_order_relaxed)) fail(s, "cancelled");
      try {
        runStep(s, o, result);
      } catch (const c10::Error& e) {
        fail(s, e.what_without_backtrace());
      } catch (const NodeFailure&) {
        throw;
      } catch (const std::exception& e) {
        fail(s, e.what());
      }
      for (int f : s.freeAfter) env[f] = c10::IValue();
    }
  }

  void runStep(Step& s, const RunOptions& o, RunResult& result) {
    switch (s.kind) {
      case StepKind::Constant: env[s.out[0]] = constantOn(s.constant, o); return;
      case StepKind::GetAttr: {
        c10::IValue v = env[s.in[0]].toObjectRef().getAttr(s.node->s(c10::attr::name));
        env[s.out[0]] = constantOn(v, o);
        return;
      }
      case StepKind::ListConstruct: {
        c10::impl::GenericList list(s.node->output()->type()->expectRef<c10::ListType>().getElementType());
        list.reserve(s.in.size());
        for (int i : s.in) list.push_back(env[i]);
        env[s.out[0]] = c10::IValue(std::move(list));
        return;
      }
      case StepKind::TupleConstruct: {
        std::vector<c10::IValue> items;
        for (int i : s.in) items.push_back(env[i]);
        auto type = s.node->output()->type()->cast<c10::TupleType>();
        env[s.out[0]] = type && type->name() ? c10::ivalue::Tuple::createNamed(std::move(items), type)
                                             : c10::ivalue::Tuple::create(std::move(items));
        return;
      }
      case StepKind::TupleUnpack: {
        const auto& items = env[s.in[0]].toTupleRef().elements();
        if (items.size() != s.out.size())
          fail(s, "tuple has " + std::to_string(items.size()) + " elements, expected " + std::to_string(s.out.size()));
        for (size_t i = 0; i < s.out.size(); ++i) env[s.out[i]] = items[i];
        return;
      }
      case StepKind::ListUnpack: {
        const auto items = env[s.in[0]].toListRef();
        if (items.size() != s.out.size())
          fail(s, "list has " + std::to_string(items.size()) + " elements, expected " + std::to_string(s.out.size()));
        for (size_t i = 0; i < s.out.size(); ++i) env[s.out[i]] = items[i];
        return;
      }
      case StepKind::DictConstruct: {
        const auto& type = s.node->output()->type()->expectRef<c10::DictType>();
        c10::impl::GenericDict dict(type.getKeyType(), type.getValueType());
        for (size_t i = 0; i + 1 < s.in.size(); i += 2) dict.insert_or_assign(env[s.in[i]], env[s.in[i + 1]]);
        env[s.out[0]] = c10::IValue(std::move(dict));
        return;
      }
      case StepKind::If: {
        BlockPlan& b = *s.blocks[env[s.in[0]].toBool() ? 0 : 1];
        runBlock(b, o, result);
        for (size_t i = 0; i < s.out.size(); ++i) env[s.out[i]] = env[b.outputs[i]];
        return;
      }
      case StepKind::Loop: {
        BlockPlan& b = *s.blocks[0];
        const int64_t maxTrips = env[s.in[0]].toInt();
        bool cond = env[s.in[1]].toBool();
        std::vector<c10::IValue> carried;
        for (size_t i = 2; i < s.in.size(); ++i) carried.push_back(env[s.in[i]]);
        for (int64_t trip = 0; trip < maxTrips && cond; ++trip) {
          env[b.inputs[0]] = trip;
          for (size_t i = 0; i < carried.size(); ++i) env[b.inputs[i + 1]] = carried[i];
          runBlock(b, o, result);
          cond = env[b.outputs[0]].toBool();
          for (size_t i = 0; i < carried.size(); ++i) carried[i] = env[b.outputs[i + 1]];
        }
        for (size_t i = 0; i < s.out.size(); ++i) env[s.out[i]] = carried[i];
        return;
      }
      case StepKind::PassThrough: env[s.out[0]] = env[s.in[0]]; return;
      case StepKind::Uninitialized: env[s.out[0]] = c10::IValue(); return;
      case StepKind::Enter:
      case StepKind::Exit: {
        if (!s.method) fail(s, "the object of this `with` block has no " +
                                   std::string(s.kind == StepKind::Enter ? "__enter__" : "__exit__"));
        torch::jit::Stack stack{env[s.in[0]]};
        if (s.kind == StepKind::Exit) stack.insert(stack.end(), 3, c10::IValue());  // no exception: (None, None, None)
        s.method->run(stack);
        if (!s.out.empty()) env[s.out[0]] = stack.empty() ? c10::IValue() : stack.back();
        return;
      }
      case StepKind::Op: break;
    }
    NodeRecord rec{s.id, s.opName, s.modulePath, {}, 0};
    // Before the node runs: it may consume (move) or overwrite (in place) its inputs.
    if (o.local && o.keepIntermediates && s.record) runLocal(s, *o.local, rec);
    torch::jit::Stack stack;
    stack.reserve(std::max(s.in.size(), s.out.size()));
    for (size_t k = 0; k < s.in.size(); ++k) {
      if (!s.moveIn.empty() && s.moveIn[k]) stack.push_back(std::move(env[s.in[k]]));
      else stack.push_back(env[s.in[k]]);
    }
    const QString followed = adaptInputs(s, o.precision, stack, o.device);
    // A lower-precision run passes dtype asserts and mixed-dtype products the way autocast would.
    torch::jit::Stack retry;
    const auto where = [&s] {
      return s.modulePath.isEmpty()
                 ? QStringLiteral("%1 (node %2)").arg(s.opName).arg(s.id)
                 : QStringLiteral("%1 (node %2, module %3)").arg(s.opName).arg(s.id).arg(s.modulePath);
    };
    if (!followed.isEmpty()) result.relaxed << QStringLiteral("%1: %2").arg(where(), followed);
    if (o.precision.dtype) {
      if (QString why = relaxForPrecision(s.opName, o.precision, stack, o.device, &retry); !why.isEmpty())
        result.relaxed << QStringLiteral("%1: %2").arg(where(), why);
    }
    const auto start = std::chrono::steady_clock::now();
    try {
      invoke(s, stack);
    } catch (const std::exception&) {
      const QString cast = retry.empty() ? QString() : unifyFloatingInputs(s.opName, o.precision, retry, o.device);
      if (cast.isEmpty()) throw;
      stack = std::move(retry);
      invoke(s, stack);
      result.relaxed << QStringLiteral("%1: %2").arg(where(), cast);
    }
    rec.selfMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (stack.size() != s.out.size())
      fail(s, "produced " + std::to_string(stack.size()) + " values, expected " + std::to_string(s.out.size()));
    for (size_t i = 0; i < s.out.size(); ++i) env[s.out[i]] = std::move(stack[i]);
    if (!s.record || (!o.keepIntermediates && !o.onNode)) return;
    for (size_t i = 0; i < s.out.size() && i < s.mutatedLater.size(); ++i)
      rec.writtenLater = rec.writtenLater || s.mutatedLater[i];
    if (o.keepIntermediates)
      for (size_t i = 0; i < s.out.size(); ++i) {
        const c10::IValue& v = env[s.out[i]];
        rec.outputs.push_back(s.mutatedLater[i] && v.isTensor() ? c10::IValue(v.toTensor().clone()) : v);
      }
    if (o.onNode) {
      // The callback sees this node's outputs; they stay in the result only with keepIntermediates.
      if (!o.keepIntermediates)
        for (size_t i = 0; i < s.out.size(); ++i) rec.outputs.push_back(env[s.out[i]]);
      o.onNode(rec);
      if (!o.keepIntermediates) rec.outputs.clear();
    }
    if (o.keepIntermediates) result.nodes.push_back(std::move(rec));
  }
};

Executor::Executor(model::RevisionPtr revision) : revision_(std::move(revision)), plan_(std::make_unique<Plan>()) {
  auto graph = revision_->graph();
  plan_->numUserInputs = graph->inputs().size() - 1;
  plan_->writtenConstants = constantsWrittenInPlace(graph->block());
  reachesOutside_ = !outsideEffects(*revision_).empty();
  unknownOperator_ = unknownOperatorRefusal(*revision_);
  for (size_t i = 1; i < graph->inputs().size(); ++i)
    plan_->inputNames << QString::fromStdString(graph->inputs()[i]->debugName());
  try {
    plan_->build(*revision_, graph->block(), plan_->top);
    plan_->planFrees(graph->block(), plan_->top, true);
    plan_->env.resize(plan_->slotOf.size());
  } catch (const std::exception& e) {
    // Reported by run(): a constructor is no place for an exception to leave a job.
    const auto* c10e = dynamic_cast<const c10::Error*>(&e);
    planError_ = QStringLiteral("the graph could not be prepared for a node-by-node run: %1")
                     .arg(errorText(c10e ? c10e->what_without_backtrace() : e.what()));
  }
}

Executor::~Executor() = default;

bool Executor::cudaAvailable() { return torch::cuda::is_available(); }

std::optional<c10::Device> Executor::parseDevice(const QString& name, QString* error) {
  try {
    c10::Device d(name.trimmed().toLower().toStdString());
    if (d.is_cuda() && !cudaAvailable()) {
      if (error) *error = QStringLiteral("device '%1' asked for, but CUDA is not available here").arg(name);
      return std::nullopt;
    }
    if (!d.is_cpu() && !d.is_cuda()) {
      if (error) *error = QStringLiteral("device '%1' is not supported (use cpu or cuda)").arg(name);
      return std::nullopt;
    }
    return d;
  } catch (const c10::Error&) {
    if (error) *error = QStringLiteral("unknown device '%1' (use cpu, cuda or cuda:N)").arg(name);
    return std::nullopt;
  }
}

namespace {
// --tf32 on/off for a CUDA run: cuDNN's and cuBLAS's switches set for the run, then restored.
class Tf32Switch {
 public:
  Tf32Switch(c10::Device device, Tf32 mode) {
    if (!device.is_cuda() || (mode != Tf32::On && mode != Tf32::Off)) return;
    auto& context = at::globalContext();
    previous_ = {context.allowTF32CuDNN(), context.allowTF32CuBLAS()};
    context.setAllowTF32CuDNN(mode == Tf32::On);
    context.setAllowTF32CuBLAS(mode == Tf32::On);
  }
  ~Tf32Switch() {
    if (!previous_) return;
    at::globalContext().setAllowTF32CuDNN(previous_->first);
    at::globalContext().setAllowTF32CuBLAS(previous_->second);
  }
  Tf32Switch(const Tf32Switch&) = delete;
  Tf32Switch& operator=(const Tf32Switch&) = delete;

 private:
  std::optional<std::pair<bool, bool>> previous_;
};

std::vector<c10::IValue> unpackOutput(c10::IValue out) {
  if (out.isTuple()) return out.toTupleRef().elements().vec();
  return {std::move(out)};
}
}  // namespace

RunResult Executor::run(const InputSet& inputs, const RunOptions& options) {
  // A program that writes its constants in place (a static KV cache) runs from its saved state
  // every time, and leaves the revision as it found it.
  if (!plan_->writtenConstants.empty() && !plan_->restoring) {
    ConstantsRestored restored(plan_->writtenConstants, plan_->restoring);
    RunResult result = run(inputs, options);
    restored.detach(result);
    return result;
  }
  ensureThreads();
  const Tf32Switch tf32(options.device, options.precision.tf32);
  RunResult result;
  if (reachesOutside_)
    if (const QString refusal = untrustedRunRefusal(*revision_); !refusal.isEmpty()) {
      result.error.message = refusal;
      return result;
    }
  if (!unknownOperator_.isEmpty()) {
    result.error.message = unknownOperator_;
    return result;
  }
  result.deviceNote = deviceRemapNote(*revision_, options.device);
  if (!planError_.isEmpty() && options.instrumented) {
    result.error.message = planError_;
    return result;
  }
  const std::vector<c10::IValue> given = withDefaults(*revision_, inputs.values);
  if (given.size() != plan_->numUserInputs) {
    result.error.message = QStringLiteral("forward takes %1 input(s) (%2), but %3 were given")
                               .arg(plan_->numUserInputs)
                               .arg(plan_->inputNames.join(QStringLiteral(", ")))
                               .arg(given.size());
    return result;
  }
  if (const QString why = checkSymbolicDimensions(*revision_->graph(), given, revision_->symbolRanges());
      !why.isEmpty()) {
    result.error.message = why;
    return result;
  }
  torch::NoGradGuard noGrad;
  GraphAsWritten asWritten;
  std::vector<c10::IValue> args;
  for (const auto& v : given) {
    c10::IValue arg = toDevice(v, options.device);
    args.push_back(options.precision.dtype ? castFloating(arg, options.precision.dtype, options.device) : arg);
  }
  const auto start = std::chrono::steady_clock::now();
  auto finish = [&] {
    result.totalMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  // Frozen weights are graph constants on the CPU: off the CPU the fast path is a copy of the
  // graph with them on the device (DeviceForward), which an unfrozen model cannot have.
  // A precision other than the model's own is applied node by node.
  const bool instrumented = options.instrumented || !options.precision.isDefault() ||
                            (!options.device.is_cpu() && !revision_->frozen());
  if (!instrumented) {
    try {
      if (!deviceForward_ || deviceForward_->device() != options.device)
        deviceForward_ = std::make_unique<DeviceForward>(*revision_, options.device);
      result.outputs = unpackOutput((*deviceForward_)(args));
      result.ok = true;
      finish();
      return result;
    } catch (const std::exception& e) {
      // The interpreter rethrows kernel errors as std::runtime_error with a TorchScript traceback.
      // Find the node that raised by walking the graph; keep libtorch's message if the walk passes.
      const auto* c10e = dynamic_cast<const c10::Error*>(&e);
      const std::string what = c10e ? c10e->what_without_backtrace() : e.what();
      if (!planError_.isEmpty()) {
        result.error.message = errorText(what);
        return result;
      }
      RunOptions walk = options;
      walk.instrumented = true;
      walk.keepIntermediates = false;
      walk.onNode = nullptr;
      RunResult located = run(inputs, walk);
      if (!located.ok) return located;
      result.error.message = errorText(what);
      return result;
    }
  }
  auto& env = plan_->env;
  env.assign(env.size(), c10::IValue());
  plan_->localDtype.assign(env.size(), std::nullopt);
  auto& top = plan_->top;
  env[top.inputs[0]] = revision_->module()._ivalue();
  for (size_t i = 0; i < args.size(); ++i) env[top.inputs[i + 1]] = args[i];
  try {
    plan_->runBlock(top, options, result);
  } catch (const NodeFailure& f) {
    result.error = f.error;
    result.nodes.clear();
    env.assign(env.size(), c10::IValue());
    return result;
  }
  if (top.outputs.size() == 1) result.outputs = unpackOutput(env[top.outputs[0]]);
  else for (int o : top.outputs) result.outputs.push_back(env[o]);
  env.assign(env.size(), c10::IValue());
  result.ok = true;
  finish();
  return result;
}

}  // namespace graft::core::run
