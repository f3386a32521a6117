#pragma once
// The one definition of what is drawn as a box and what is folded into its consumer's attribute
// table; GraphView, edits, edit targets and both diffs ask here.
#include <QtCore/QString>

#include <cstddef>

namespace torch::jit { struct Node; }

namespace graft::core::model {

// prim::Constant, prim::GetAttr (parameters and submodules of an unfrozen model), and
// List/TupleConstructs whose inputs are all prim::Constants. A list of computed tensors is an op.
bool isFolded(const torch::jit::Node* node);

// The schema's name for input `index` of `node` ("weight", "stride"): from the node's own schema,
// else the first registered schema it matches; "input N" where none names it.
QString argumentName(const torch::jit::Node* node, std::size_t index);

}  // namespace graft::core::model
