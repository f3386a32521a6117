#pragma once
// Computations on sizes: a program's aten::sym_size.int, Python arithmetic on those ints
// (aten::mul.int, prim::max, …) and lists of them, as view() and expand() take. A diagram shows
// them as an attribute of the op they size, written symbolically ("[s0, s1*4, -1]"), instead of
// as boxes whose edges fan out from every tensor whose size is read.
#include <QtCore/QString>

namespace torch::jit { struct Node; struct Value; }

namespace graft::core::model {

// An int, float or bool, symbolic or not: what size arithmetic computes with (a SymInt, SymFloat
// or SymBool in the export schema).
bool isScalarValue(const torch::jit::Value* value);

bool isSizeComputation(const torch::jit::Node* node);

// `value` written from its constants and the symbolic sizes of the tensors it reads.
QString sizeExpression(const torch::jit::Value* value);

}  // namespace graft::core::model
