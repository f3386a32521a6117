#pragma once
// Graph views built in code for layout and canvas tests: shapes real models have, at sizes the
// test data does not reach.
#include "core/model/graph_view.h"

#include <memory>

namespace graft::test {

// A decomposed LLM in miniature: `blocks` repeated blocks under one module, each a diamond of
// four ops (not a chain), the blocks one after another, and a mask made at the top that every
// block reads (a long edge into each). Group 1 is the model, group 2 + k block k; node 1 is the mask.
std::shared_ptr<const core::model::GraphView> repeatedBlocks(int blocks);

}  // namespace graft::test
