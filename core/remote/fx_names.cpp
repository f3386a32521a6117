#include "core/remote/fx_names.h"

#include <torch/csrc/jit/ir/ir.h>

namespace graft::core::remote {

QHash<QString, torch::jit::Node*> nodesByFxName(const model::Revision& revision) {
  QHash<QString, torch::jit::Node*> byName;
  for (torch::jit::Node* n : revision.graph()->nodes()) {
    if (n->kind().is_prim()) continue;
    for (const torch::jit::Value* v : n->outputs())
      if (v->hasDebugName()) byName.insert(QString::fromStdString(v->debugName()), n);
  }
  return byName;
}

}  // namespace graft::core::remote
