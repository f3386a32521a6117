#pragma once
// A torch.export program's values carry their fx node's name in Graft's graph (io/pt2_import), so
// what the host's agent reports per fx node lands on Graft's nodes by name.
#include "core/model/revision.h"

#include <QtCore/QHash>
#include <QtCore/QString>

namespace torch::jit { struct Node; }

namespace graft::core::remote {

// Graft's op node (kind not prim::) whose output carries each name.
QHash<QString, torch::jit::Node*> nodesByFxName(const model::Revision& revision);

}  // namespace graft::core::remote
