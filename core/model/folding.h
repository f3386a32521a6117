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

// A list of computed tensors built for the one op that takes it (cat, stack): not a box of its
// own, its items are that op's inputs (`tensors[0]`).
bool isItemList(const torch::jit::Node* node);

// Drawn as an attribute of the op that reads it, never a box: folded constants and lists, item
// lists, and size computations (core/model/size_expression). A diff compares these as part of
// their consumer's inputs, never as nodes of their own.
bool isAttributeOfItsOp(const torch::jit::Node* node);

// A node a diff lists and a pass's matches count: an op (not prim::) that is not an attribute of
// another, or a prim:: node that holds blocks (if, loop) or returns nothing.
bool isOpOfItsOwn(const torch::jit::Node* node);

// The schema's name for input `index` of `node` ("weight", "stride"): from the node's own schema,
// else the first registered schema it matches; "input N" where none names it.
QString argumentName(const torch::jit::Node* node, std::size_t index);

}  // namespace graft::core::model
