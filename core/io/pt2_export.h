#pragma once
// Saving a revision of a torch.export program back as a .pt2 that stock torch.export.load reads.
#include "core/model/revision.h"
#include "core/model/saved_record.h"

#include <QtCore/QString>
#include <vector>

namespace c10 { struct IValue; }

namespace graft::core::io {

struct Pt2SaveResult {
  bool ok = false;
  QString error;  // what stopped it, worded for the user
};

// Writes `revision` (of the program at `sourcePt2`) to `outPath` atomically. The model.json is
// regenerated from the graph: every op node becomes a call_function on its overload, values keep
// their names (fx names for untouched nodes), module paths and source lines become
// nn_module_stack and stack_trace again, and tensor constants become weights. A dynamic program
// stays dynamic: sizes keep their symbols (from the values' types, or libtorch's shape analysis
// for nodes added by edits), SymInt nodes and arithmetic on them are written as torch.export
// writes them (aten.sym_size.int, _operator.mul), and range_constraints are the revision's ranges
// of the symbols still used. Hints, and the shapes of values no symbol reaches, come from one run
// on `sampleInputs`. A size Graft cannot express symbolically is refused, never written as a
// number. The program's signature specs and module call graph are carried over from the source.
// Refuses `outPath == sourcePt2`.
// `provenance` is written as the record kPt2ProvenanceRecord, and each node's origins as its
// `graft_from` metadata.
Pt2SaveResult savePt2(const model::RevisionPtr& revision, const QString& sourcePt2, const QString& outPath,
                      const std::vector<c10::IValue>& sampleInputs, const model::SavedRecord* provenance = nullptr);

// Writes `revision` as a program of its own (no source program): its graph inputs become the
// user inputs, its tensor constants weights, and `sampleInputs` (one tensor per input) the
// archive's sample inputs, so `torch.export.load(path)` runs it on them. For subgraphs cut out
// of a model (run/reduce.h).
Pt2SaveResult savePt2Program(const model::RevisionPtr& revision, const QString& outPath,
                             const std::vector<c10::IValue>& sampleInputs);

// The archive record (below the archive's top folder) holding Graft's provenance record.
inline constexpr const char* kPt2ProvenanceRecord = "extra/graft_provenance.json";

}  // namespace graft::core::io
