#include "core/model/weight_bytes.h"

#include "core/model/graph_walk.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>

#include <unordered_set>

namespace graft::core::model {

qint64 weightBytes(const Revision& revision) {
  // By where their bytes are (never reading them): tied weights, and two records of a program
  // naming one file entry, are two storages over the same bytes.
  std::unordered_set<const void*> seen;
  qint64 total = 0;
  const auto count = [&](const at::Tensor& t) {
    if (!t.defined() || !t.has_storage()) return;
    if (seen.insert(t.storage().data()).second) total += qint64(t.storage().nbytes());
  };
  forEachNode(*revision.graph(), [&](torch::jit::Node* n) {
    if (n->kind() != c10::prim::Constant || n->outputs().size() != 1) return;
    if (!n->output()->type()->cast<c10::TensorType>()) return;
    if (const auto v = torch::jit::toIValue(n->output()); v && v->isTensor()) count(v->toTensor());
  });
  for (const auto& attribute : revision.module().named_attributes(/*recurse=*/true))
    if (attribute.value.isTensor()) count(attribute.value.toTensor());
  return total;
}

}  // namespace graft::core::model
