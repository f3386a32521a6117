#include "core/model/provenance.h"

#include <algorithm>

namespace graft::core::model {

namespace {
void addSorted(std::vector<NodeId>& into, const std::vector<NodeId>& more) {
  into.insert(into.end(), more.begin(), more.end());
  std::sort(into.begin(), into.end());
  into.erase(std::unique(into.begin(), into.end()), into.end());
}
}  // namespace

Origin Lineage::originOf(NodeId id) const {
  auto it = map_.find(id);
  return it == map_.end() ? Origin{{id}, false} : it->second;
}

std::optional<NodeId> Lineage::sameAs(NodeId id) const {
  const Origin o = originOf(id);
  if (o.altered || o.from.size() != 1) return std::nullopt;
  return o.from.front();
}

Lineage Lineage::then(const Change& change) const {
  Lineage out = *this;
  for (NodeId r : change.removed) out.map_.erase(r);
  for (const auto& [id, origin] : change.changed) {
    Origin composed{{}, origin.altered};
    for (NodeId p : origin.from) {
      const Origin parent = originOf(p);
      addSorted(composed.from, parent.from);
      composed.altered = composed.altered || parent.altered;
    }
    out.map_[id] = std::move(composed);
  }
  return out;
}

Lineage Lineage::through(const Lineage& outer) const {
  Lineage out = outer;
  // Every node named here (explicitly or as an unchanged copy) is re-expressed; nodes this
  // lineage does not mention keep the outer entry of their id.
  for (const auto& [id, origin] : map_) {
    Origin composed{{}, origin.altered};
    for (NodeId p : origin.from) {
      const Origin o = outer.originOf(p);
      addSorted(composed.from, o.from);
      composed.altered = composed.altered || o.altered;
    }
    out.map_[id] = std::move(composed);
  }
  return out;
}

}  // namespace graft::core::model
