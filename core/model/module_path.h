#pragma once
// A node's module path ("layer1.0.conv1") from its inlined call stack.
#include "core/model/node_place.h"

#include <QtCore/QStringList>

namespace torch::jit { struct Node; }

namespace graft::core::model {

// The instance names from outermost to innermost; `typeNames` (optional) gets each module's
// class name ("Sequential", "BasicBlock", "Conv2d") alongside, and `callKeys` (optional) what
// tells each level's call apart from other calls of the same module: the chain of call sites
// that led to it (a module called twice, ResNet's `relu`, is called from two sites).
QStringList modulePathParts(const torch::jit::Node* node, QStringList* typeNames = nullptr,
                            QStringList* callKeys = nullptr);
// The parts joined with ".", empty at the top level.
QString modulePath(const torch::jit::Node* node);
// The module path, class names and source range libtorch records on the node: what a Revision's
// place table starts from. Its calls are numbered by a CallNumbering (model/module_calls.h) fed
// the `callKeys`; without one every level reads as a first call.
NodePlace placeFromCallStack(const torch::jit::Node* node, QStringList* callKeys = nullptr);

}  // namespace graft::core::model
