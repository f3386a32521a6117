#pragma once
// Repeated blocks: sibling modules with the same op structure (the same ops, wired the same way,
// in the same submodules; constants and weights may differ), such as a transformer's N encoder
// layers or a ResNet stage's identical bottlenecks.
#include "core/model/graph_view.h"

#include <QtCore/QStringList>

namespace graft::core::model {

struct Repeat {
  int parent = -1;       // the group whose children repeat
  QVector<int> groups;   // the repeating children, in order (at least two)
  QStringList paths;     // their module paths
  QString typeName;      // "Bottleneck"
};

// Runs of consecutive siblings with equal structure, outermost first; inside a repeat only the
// first module is searched further. Modules of fewer than two ops are never repeats.
QVector<Repeat> findRepeats(const GraphView& view);

// A group's structure as text: equal for groups that repeat each other.
QString structureOf(const GraphView& view, int group);

}  // namespace graft::core::model
