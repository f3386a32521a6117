#pragma once
// Provenance: what a change did to its parent revision's nodes, and where every node of a
// revision comes from in the document's original (its lineage). Every revision records both,
// whatever made it (an edit, a rule, a pass, a replay), so compare, diff, History, the profiler
// and the canvas pair nodes through one map. No libtorch types here.
#include "core/model/ids.h"

#include <optional>
#include <unordered_map>
#include <vector>

namespace graft::core::model {

// Where one node comes from.
struct Origin {
  std::vector<NodeId> from;  // the reference revision's nodes it derives from, sorted; empty: new
  bool altered = false;      // it computes something else than they did (op, inputs or constants)
};

// The step from a parent revision to its child.
struct Change {
  std::vector<NodeId> removed;                 // parent nodes the child no longer has
  std::unordered_map<NodeId, Origin> changed;  // child nodes that are new, altered or absorbed removed ones
  bool empty() const { return removed.empty() && changed.empty(); }
};

// Every node's origin in a root revision. A node not in the map is an unchanged copy of the root
// node with the same id; a map entry can also say so explicitly (`from` = {that node}, not
// altered), as a file saved by Graft does for the file it was made from.
class Lineage {
 public:
  Origin originOf(NodeId id) const;
  // The root node `id` is an unchanged copy of, if it is one.
  std::optional<NodeId> sameAs(NodeId id) const;
  // This lineage followed by `change` (whose `from` ids are nodes of the revision this lineage
  // describes): the child's lineage in the same root.
  Lineage then(const Change& change) const;
  // Re-expresses the roots through `outer` (this lineage's root described in a further root).
  Lineage through(const Lineage& outer) const;
  void set(NodeId id, Origin origin) { map_[id] = std::move(origin); }
  const std::unordered_map<NodeId, Origin>& entries() const { return map_; }

 private:
  std::unordered_map<NodeId, Origin> map_;
};

}  // namespace graft::core::model
