#pragma once
// A revision's graph as torch.fx shows one: the node listing that print(ep.graph) prints, and the
// Python that ep.graph_module.code reads, each with the line of every node, so the IR and Code
// views can select a node from its line and the other way round.
#include "core/model/ids.h"

#include <QtCore/QHash>
#include <QtCore/QString>

namespace c10 { struct FunctionSchema; }

namespace graft::core::model {

class Revision;

// "torch.ops.aten.conv2d.default": the call target fx names an operator overload by.
QString fxTarget(const c10::FunctionSchema& schema);

struct FxListing {
  QString text;
  QHash<NodeId, int> lineOf;  // 0-based line that defines each op node's outputs
};

struct FxText {
  FxListing graph;  // "%conv2d : [num_users=1] = call_function[target=torch.ops.aten.conv2d.default](args = (...),
                    // kwargs = {})"
  FxListing code;   // "conv2d = torch.ops.aten.conv2d.default(x, p_conv1_weight)"
};

// Tensor constants (parameters, buffers) are placeholders named by their values, as a program's
// are; other constants are written inline; arguments left at their schema defaults are left out,
// as fx leaves them out. An `if` (torch.cond) is written as Python's if/else with its branches.
FxText fxText(const Revision& revision);

}  // namespace graft::core::model
