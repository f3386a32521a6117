#pragma once
// A node's module path ("layer1.0.conv1") from its inlined call stack.
#include "core/model/node_place.h"

#include <QtCore/QHash>
#include <QtCore/QStringList>

namespace torch::jit { struct Node; struct Module; }

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

// Every submodule's qualified name and class name ("encoder.layer.0" -> "RobertaLayer"), from a
// module before freezing removes them.
using ModuleNames = QHash<QString, QString>;
ModuleNames moduleNamesOf(const torch::jit::Module& module);

// A traced module's call stack names a ModuleList's item by its index alone ("encoder.0"): the
// list itself is never called. Each part that is not a child of the module before it becomes the
// path through the container that `names` holds ("layer.0"), when exactly one submodule of that
// class ends so; `cache` keeps the answers across the nodes of one graph.
void completeContainerPaths(QStringList& parts, const QStringList& types, const ModuleNames& names,
                            QHash<QString, QString>& cache);

}  // namespace graft::core::model
