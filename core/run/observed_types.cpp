#include "core/run/observed_types.h"

#include "core/model/value_format.h"
#include "core/run/executor.h"

#include <torch/csrc/jit/ir/ir.h>

namespace graft::core::run {

namespace {

// No sizes, or a rank only ("[?, ?]"): a dimension neither fixed nor named by the program.
bool unshaped(const torch::jit::Value* v) {
  if (!v->type()->cast<c10::TensorType>()) return false;
  const QString type = model::formatType(v);
  return !type.contains(QLatin1Char('[')) || type.contains(QLatin1Char('?'));
}

bool blockLacksShapes(const torch::jit::Block* block) {
  for (const torch::jit::Node* n : block->nodes()) {
    for (const torch::jit::Value* out : n->outputs())
      if (unshaped(out)) return true;
    for (const torch::jit::Block* b : n->blocks())
      if (blockLacksShapes(b)) return true;
  }
  return false;
}

}  // namespace

bool lacksShapes(const model::Revision& revision) {
  const auto& graph = *revision.graph();
  for (const torch::jit::Value* in : graph.inputs())
    if (unshaped(in)) return true;
  return blockLacksShapes(graph.block());
}

std::shared_ptr<const model::ObservedTypes> observeTypes(const model::RevisionPtr& revision, const InputSet& inputs,
                                                         const std::atomic<bool>* cancel, QString* error) {
  auto types = std::make_shared<model::ObservedTypes>();
  const auto graph = revision->graph();
  for (size_t i = 1; i < graph->inputs().size() && i - 1 < inputs.values.size(); ++i)
    if (const auto& v = inputs.values[i - 1]; v.isTensor())
      types->insert(QString::fromStdString(graph->inputs()[i]->debugName()), model::formatTensorType(v.toTensor()));
  RunOptions options;
  options.instrumented = true;
  options.cancel = cancel;
  options.onNode = [&](const NodeRecord& rec) {
    const torch::jit::Node* n = revision->nodeOf(rec.id);
    if (!n) return;
    for (size_t k = 0; k < rec.outputs.size() && k < n->outputs().size(); ++k) {
      const torch::jit::Value* out = n->outputs()[k];
      const QString name = QString::fromStdString(out->debugName());
      if (types->contains(name)) continue;  // a node in a loop: its first run
      const c10::IValue& value = rec.outputs[k];
      if (value.isTensor() && value.toTensor().defined()) {
        types->insert(name, model::formatTensorType(value.toTensor()));
      } else if (value.isTensorList()) {  // split's pieces, which a ListUnpack names
        const auto list = value.toTensorList();
        for (const torch::jit::Use& use : out->uses()) {
          if (use.user->kind() != c10::prim::ListUnpack) continue;
          for (size_t i = 0; i < use.user->outputs().size() && i < list.size(); ++i)
            types->insert(QString::fromStdString(use.user->outputs()[i]->debugName()),
                          model::formatTensorType(list.get(i)));
        }
      }
    }
  };
  Executor executor(revision);
  const auto result = executor.run(inputs, options);
  if (!result.ok || (cancel && cancel->load())) {
    if (error) *error = result.ok ? QStringLiteral("cancelled") : result.error.headline();
    return nullptr;
  }
  return types;
}

}  // namespace graft::core::run
