#include "core/rewrite/program_dtype.h"

#include "core/run/dtype_follow.h"
#include "core/run/precision.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/ir/ir.h>

namespace graft::core::rewrite {

using torch::jit::Node;
using torch::jit::Value;

namespace {

void forEachNodeIn(torch::jit::Block* block, const std::function<void(Node*)>& f) {
  for (Node* n : block->nodes()) {
    f(n);
    for (torch::jit::Block* sub : n->blocks()) forEachNodeIn(sub, f);
  }
}

}  // namespace

std::vector<std::pair<Value*, Value*>> convertProgramTo(model::Revision::GraphCopy& copy, const model::Revision& base,
                                                        const std::function<bool(const Value*)>& floating,
                                                        c10::ScalarType dtype) {
  torch::jit::Graph& graph = *copy.graph;
  // The base node a copied node stands for (null for one the copy added).
  const auto baseNode = [&](const Node* n) -> const Node* {
    auto it = copy.ids.find(n);
    return it == copy.ids.end() ? nullptr : base.nodeOf(it->second);
  };
  std::vector<std::pair<Value*, Value*>> inputCasts;
  std::vector<Node*> nodes;
  forEachNodeIn(graph.block(), [&](Node* n) { nodes.push_back(n); });
  Node* top = graph.block()->nodes().front();
  const auto constantAtTop = [&](const c10::IValue& v) {
    torch::jit::WithInsertPoint guard(top);
    return graph.insertConstant(v);
  };
  Value* dtypeConstant = nullptr;
  for (Node* n : nodes) {
    if (n->kind() == c10::prim::Constant) {
      const auto value = torch::jit::toIValue(n->output());
      if (!value || !value->isTensor() || !value->toTensor().is_floating_point() ||
          value->toTensor().scalar_type() == dtype)
        continue;
      const at::Tensor cast = run::castWithExtremes(value->toTensor(), dtype);
      n->t_(c10::attr::value, cast);
      n->output()->setType(c10::TensorType::create(cast));
      continue;
    }
    // A dtype assert checks what the capture saw; under `.half()` that is gone (a `.float()`'s
    // input is float16 now), so it keeps checking sizes, device and layout only.
    if (n->kind() == c10::Symbol::fromQualString("aten::_assert_tensor_metadata") && n->inputs().size() > 3) {
      const auto asserted = torch::jit::toIValue(n->input(3));
      if (asserted && asserted->isInt() && c10::isFloatingType(c10::ScalarType(asserted->toInt())))
        n->replaceInput(3, constantAtTop(c10::IValue()));
      continue;
    }
    const Node* original = baseNode(n);
    if (original)
      for (int k : run::followedDtypeInputs(original, base)) {
        const auto recorded = torch::jit::toIValue(n->input(size_t(k)));
        if (!recorded || !recorded->isInt() || recorded->toInt() != int64_t(c10::kFloat)) continue;
        if (!dtypeConstant) dtypeConstant = constantAtTop(int64_t(dtype));
        n->replaceInput(size_t(k), dtypeConstant);
      }
    for (size_t k = 0; k < n->inputs().size(); ++k) {
      const auto number = torch::jit::toIValue(n->input(k));
      if (!number || !number->isDouble() || run::extremeAt(number->toDouble(), dtype) == number->toDouble()) continue;
      n->replaceInput(k, constantAtTop(run::extremeAt(number->toDouble(), dtype)));
    }
  }
  // Floating inputs enter at the program's dtype, whatever the caller gives.
  for (size_t i = 1; i < graph.inputs().size(); ++i) {
    Value* in = graph.inputs()[i];
    if (!floating(in) || in->uses().empty()) continue;
    torch::jit::WithInsertPoint guard(top);
    Value* cast = graph.insert(c10::aten::to, {in, dtype, false, false, c10::IValue()});
    in->replaceAllUsesAfterNodeWith(cast->node(), cast);
    inputCasts.emplace_back(cast, in);
  }
  return inputCasts;
}

model::RevisionPtr programAtDtype(const model::Revision& base, c10::ScalarType dtype,
                                  const std::function<bool(size_t input)>& floatingInput, model::NodeIdSource& ids,
                                  QString* error) {
  if (!base.frozen()) {
    if (error)
      *error = QStringLiteral("the model's weights are module attributes (it is not frozen), which only .half() on "
                              "the module converts");
    return nullptr;
  }
  auto copy = base.cloneGraph();
  const auto inputs = copy.graph->inputs();
  const auto floating = [&](const Value* v) {
    for (size_t i = 1; i < inputs.size(); ++i)
      if (inputs[i] == v) return floatingInput(i - 1);
    return false;
  };
  convertProgramTo(copy, base, floating, dtype);
  return model::Revision::derived(base, copy.graph, copy.ids, QStringLiteral("at %1").arg(run::dtypeName(dtype)), ids);
}

}  // namespace graft::core::rewrite
