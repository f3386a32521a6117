#pragma once
// The differences between two graphs, node by node: two revisions of one document (matched by
// NodeId) or two files (matched by module path, op and order of occurrence, as compare does).
// Many-to-one is kept: a batch_norm folded into its convolution is "removed, folded into" that
// convolution, which is "changed".
#include "core/model/ids.h"
#include "core/model/revision.h"

#include <QtCore/QJsonObject>
#include <QtCore/QStringList>
#include <QtCore/QVector>

namespace graft::core::edit {

struct DiffNode {
  model::NodeId node = model::kNoNode;  // in A for removed nodes, in B otherwise
  QString op;
  QString modulePath;
};

struct ChangedNode : DiffNode {
  model::NodeId nodeA = model::kNoNode;
  QStringList what;  // "constant weight", "inputs", …
};

struct RemovedNode : DiffNode {
  std::optional<DiffNode> foldedInto;  // the B node that absorbed it, where there is one
};

struct GraphDiff {
  QVector<DiffNode> added;
  QVector<RemovedNode> removed;
  QVector<ChangedNode> changed;
  // Every matched pair (A's id, B's id), changed or not: what a side-by-side view syncs on.
  QVector<QPair<model::NodeId, model::NodeId>> pairs;
  bool equal() const { return added.isEmpty() && removed.isEmpty() && changed.isEmpty(); }
  QJsonObject toJson() const;  // added[], removed[], changed[], summary
};

enum class DiffMatching { ById, ByStructure };

// Op nodes only: constants, parameters and constant lists count as their consumers' constants.
GraphDiff diffGraphs(const model::Revision& a, const model::Revision& b, DiffMatching matching);

}  // namespace graft::core::edit
