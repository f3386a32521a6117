#pragma once
// `graft-cli shapes`: every value of a model with its producing node, module path, shape and
// dtype. A torch.export program carries them in its metadata; a TorchScript model records none,
// so they come from one node-by-node run on the inputs (as torch.fx's ShapeProp does).
#include <QtCore/QJsonObject>
#include <QtCore/QString>

#include "core/model/revision.h"
namespace graft::core::model { struct InputSet; }

namespace graft::core::report {

// From the graph's value types (a .pt2's metadata). `values[]`: name, node, op, module_path,
// shape (ints; "?" for a dimension without a fixed size), dtype; graph inputs have node null.
QJsonObject shapesFromMetadata(const model::Revision& revision);

// From one node-by-node run. On failure returns an empty object and sets `error`. Where a value's
// type has symbolic sizes, its entry adds `symbolic_shape`, and `symbols` gives each symbol's
// size in this run beside its range.
QJsonObject shapesFromRun(const model::RevisionPtr& revision, const model::InputSet& inputs, QString* error);

}  // namespace graft::core::report
