#pragma once
// Saving a revision as a TorchScript archive that stock PyTorch loads with torch.jit.load.
#include <QtCore/QString>

namespace graft::core::model { class Revision; }

namespace graft::core::io {

struct SaveResult {
  bool ok = false;
  QString error;  // worded for the user when !ok
};

// Writes `revision` (its forward graph as the module's forward) to `path` atomically (QSaveFile):
// the old file stays intact if anything fails. Callers decide whether overwriting is allowed.
SaveResult saveRevision(const model::Revision& revision, const QString& path);

}  // namespace graft::core::io
