#pragma once
// Infers what a change did from the parent's and the child's graphs and their shared NodeIds, so
// edits, pattern rules, built-in rewrites and libtorch passes all record provenance the same way:
// - a child node with no parent node is new; a kept node whose op, inputs or constants differ is
//   altered;
// - a removed parent node is absorbed by what its consumers read in its place: the new nodes
//   behind that value (a rule's replacement) or the kept node it now is (the conv a batch_norm
//   was folded into, the input a bypassed node passes on). When a consumer reads a graph input
//   instead, the consumer absorbs it.
// Folded nodes (constants, parameters, constant lists) are left out: they are their consumers'
// attributes.
#include "core/model/provenance.h"

namespace graft::core::model {

class Revision;

Change inferChange(const Revision& parent, const Revision& child);

}  // namespace graft::core::model
