#pragma once
// The differences between two graphs, node by node: two revisions of one document or a file Graft
// saved and its source (matched through provenance), or two unrelated files (matched by module
// path, op and order of occurrence, as compare does).
// Many-to-one is kept: a batch_norm folded into its convolution is "removed, folded into" that
// convolution, which is "changed".
#include "core/model/ids.h"
#include "core/model/revision.h"

#include <QtCore/QJsonObject>
#include <QtCore/QStringList>
#include <QtCore/QVector>

namespace graft::core::model { class Document; }

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
  // "3 added, 20 removed (20 folded), 20 changed", or "no difference".
  QString summaryText() const;
  // One line per difference, nodes named by module path and op:
  // "− layer1.0.bn1 aten::batch_norm, folded into layer1.0.conv1 aten::conv2d".
  QStringList lines() const;
};

enum class DiffMatching {
  ByProvenance,  // revisions of one document, or a file Graft saved against its source
  ByStructure,   // unrelated files: module path, op and order of occurrence
};

// Op nodes only: constants, parameters and constant lists count as their consumers' constants.
// By provenance, `la` and `lb` are both sides' origins in one root (null: the revisions' own
// lineages): a B node pairs with the node of its origins that runs the same op, and a removed
// node is folded into the first B node that derives from it.
GraphDiff diffGraphs(const model::Revision& a, const model::Revision& b, DiffMatching matching,
                     const model::Lineage* la = nullptr, const model::Lineage* lb = nullptr);

// Revisions of two documents: by provenance when both trace back to one root (the same file or
// sample, or a file Graft saved from it), by structure otherwise.
GraphDiff diffDocuments(const model::Document& a, const model::Revision& revA, const model::Document& b,
                        const model::Revision& revB);

}  // namespace graft::core::edit
