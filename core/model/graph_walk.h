#pragma once
// Visits every node of a graph in order, descending into the blocks of If/Loop nodes.
#include <torch/csrc/jit/ir/ir.h>

namespace graft::core::model {

template <typename Fn>
void forEachNode(torch::jit::Block* block, Fn&& fn) {
  for (torch::jit::Node* node : block->nodes()) {
    fn(node);
    for (torch::jit::Block* sub : node->blocks()) forEachNode(sub, fn);
  }
}

template <typename Fn>
void forEachNode(const torch::jit::Graph& graph, Fn&& fn) {
  forEachNode(const_cast<torch::jit::Graph&>(graph).block(), fn);
}

// All nodes of a graph, in the order forEachNode visits them.
inline std::vector<torch::jit::Node*> allNodes(const torch::jit::Graph& graph) {
  std::vector<torch::jit::Node*> nodes;
  forEachNode(graph, [&](torch::jit::Node* n) { nodes.push_back(n); });
  return nodes;
}

}  // namespace graft::core::model
