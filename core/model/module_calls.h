#pragma once
// Numbers each module's calls in call order, for NodePlace::moduleCalls: a module called twice
// (ResNet's `relu`) is two calls, drawn as two groups and named `relu`, `relu (2)`.
#include "core/model/node_place.h"

#include <QtCore/QHash>
#include <QtCore/QStringList>

namespace graft::core::model {

class CallNumbering {
 public:
  // Fills `place.moduleCalls` from `callKeys`, one per level of its module path: what tells that
  // call of the level's module apart from the module's other calls (TorchScript's chain of call
  // sites, a program's nn_module_stack key). Give it op nodes first, in graph order: the first
  // call of a module seen is 1, the next new one 2, and so on. All first calls leave it empty.
  void number(NodePlace& place, const QStringList& callKeys);

 private:
  QHash<QString, QHash<QString, int>> seen_;  // module path -> call key -> call number
};

}  // namespace graft::core::model
