#pragma once
// `graft-cli shapes`: every value of a model with its producing node, module path, shape and
// dtype. A torch.export program carries them in its metadata; a TorchScript model records none,
// so they come from one node-by-node run on the inputs (as torch.fx's ShapeProp does).
#include <QtCore/QJsonObject>
#include <QtCore/QString>

#include "core/model/revision.h"
namespace graft::core::model { struct InputSet; }
namespace graft::core::run { struct RunResult; }

namespace graft::core::report {

// From the graph's value types (a .pt2's metadata). `values[]`: name, node, op, module_path,
// shape (ints; "?" for a dimension without a fixed size), dtype; graph inputs have node null.
QJsonObject shapesFromMetadata(const model::Revision& revision);

// From one node-by-node run. On failure returns an empty object and sets `error`. Where a value's
// type has symbolic sizes, its entry adds `symbolic_shape`, and `symbols` gives each symbol's
// size in this run beside its range.
QJsonObject shapesFromRun(const model::RevisionPtr& revision, const model::InputSet& inputs, QString* error);
// The same from a run made elsewhere (a remote host's, remote_shapes.h): `result` holds a record
// per node with its outputs (values, or meta tensors: only dtypes and sizes are read).
QJsonObject shapesOfRun(const model::Revision& revision, const model::InputSet& inputs, const run::RunResult& result);

}  // namespace graft::core::report
