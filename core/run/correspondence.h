#pragma once
// Which nodes of two revisions stand for each other, through provenance: an op node that is an
// unchanged copy on both sides pairs with its copy; every other node belongs to a change group,
// the connected set of A and B nodes that derive from the same original nodes (a folded conv
// with the conv and batch_norm it replaced). A group's outputs that leave it are paired, so a
// comparison reads the value the group hands on, never a node inside it.
#include "core/model/provenance.h"
#include "core/model/revision.h"

#include <QtCore/QString>
#include <unordered_map>
#include <vector>

namespace graft::core::run {

// One value leaving a change group on both sides: output `outA` of A node `a` and `outB` of `b`.
struct ExitPair {
  model::NodeId a = model::kNoNode, b = model::kNoNode;
  int outA = 0, outB = 0;
};

struct ChangeGroup {
  int number = 0;                    // 1-based, in B's graph order (A's for groups B lacks)
  std::vector<model::NodeId> a, b;   // op nodes on each side, in graph order
  QString opsA, opsB;                // "aten::conv2d + aten::batch_norm"
  std::vector<ExitPair> exits;       // paired outputs
  int unpairedExits = 0;             // outputs leaving the group with no counterpart
  QString label() const;             // "change 3: aten::conv2d + aten::batch_norm → aten::conv2d"
};

struct Correspondence {
  std::unordered_map<model::NodeId, model::NodeId> bOfA;  // unchanged copies: A node → B node
  std::unordered_map<model::NodeId, model::NodeId> aOfB;
  std::vector<ChangeGroup> groups;
  std::unordered_map<model::NodeId, int> groupOfA, groupOfB;  // index into groups
};

// `la` and `lb` give each side's origins in one root (for two revisions of a document, their own
// lineages; for a file Graft saved, its saved provenance expressed in the other file's ids).
// Only op nodes (kind not prim::) take part.
Correspondence correspond(const model::Revision& a, const model::Lineage& la, const model::Revision& b,
                          const model::Lineage& lb);

}  // namespace graft::core::run
