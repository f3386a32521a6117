#pragma once
// Saving a revision as a TorchScript archive that stock PyTorch loads with torch.jit.load.
#include "core/model/diagnostic.h"

#include <QtCore/QString>

#include <memory>

namespace graft::core::model { class Document; class Revision; struct SavedRecord; }

namespace graft::core::model { struct InputSet; }

namespace graft::core::io {

struct SaveResult {
  bool ok = false;
  QString error;    // worded for the user when !ok
  QString warning;  // saved, but with this said (e.g. no inputs to check the revision on)
  // The error as a "save" error, or the warning as a "save" warning.
  model::Diagnostics diagnostics(const QString& file = {}) const;
};

// Writes `revision` (its forward graph as the module's forward) to `path` atomically (QSaveFile):
// the old file stays intact if anything fails. Callers decide whether overwriting is allowed.
// `record` (model/saved_record.h) goes into the archive as the extra file kProvenanceExtraFile.
SaveResult saveRevision(const model::Revision& revision, const QString& path,
                        const model::SavedRecord* record = nullptr);

// The extra file of a TorchScript archive that holds Graft's provenance record.
inline constexpr const char* kProvenanceExtraFile = "graft_provenance.json";

// Saves a revision of `document` in the format `path` names: `.pt2` writes a torch.export
// program (only for a document opened from one; its shapes from a run on the program's inputs),
// anything else a TorchScript archive.
// `checkInputs`: what a changed TorchScript revision is run on before it is written (default: the
// model's own inputs); a model with neither is saved with a warning that it was not run.
SaveResult saveAs(const model::Document& document, const std::shared_ptr<const model::Revision>& revision,
                  const QString& path, const model::InputSet* checkInputs = nullptr);

}  // namespace graft::core::io
