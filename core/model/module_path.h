#pragma once
// A node's module path ("layer1.0.conv1") from its inlined call stack.
#include "core/model/node_place.h"

#include <QtCore/QStringList>

namespace torch::jit { struct Node; }

namespace graft::core::model {

// The instance names from outermost to innermost; `typeNames` (optional) gets each module's
// class name ("Sequential", "BasicBlock", "Conv2d") alongside.
QStringList modulePathParts(const torch::jit::Node* node, QStringList* typeNames = nullptr);
// The parts joined with ".", empty at the top level.
QString modulePath(const torch::jit::Node* node);
// The module path, class names and source range libtorch records on the node: what a Revision's
// place table starts from.
NodePlace placeFromCallStack(const torch::jit::Node* node);

}  // namespace graft::core::model
