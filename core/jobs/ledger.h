#pragma once
// The ledger of a document: each revision checked against the original (one comparison on the
// same inputs, at the Compare dock's tolerance), timed (median of plain forwards) and its peak
// memory recorded, so every change shows its error and its cost without a click. The History dock computes it in the
// background after each change; `graft-cli replay --ledger` prints it. No libtorch types here.
#include "core/model/revision.h"
#include "core/model/input_set.h"

#include <QtCore/QJsonObject>
#include <atomic>

namespace graft::core::jobs {

struct LedgerEntry {
  bool ok = false;
  QString error;        // why the check could not run
  double maxAbs = 0;    // the largest output difference against the original
  bool pass = true;     // every output within tolerance
  double medianMs = 0;  // the revision's plain forward
  int runs = 0;
  qint64 peakBytes = 0;  // one node-by-node run's peak allocation (profile::recordMemory)
  QJsonObject toJson() const;  // ok, error, max_abs, pass, median_ms, runs, peak_bytes
};

struct LedgerOptions {
  double atol = 1e-5, rtol = 1e-4;
  bool elementwise = false;  // judged at atol/rtol; otherwise by the rounding model (verdict.h)
  int runs = 5;  // timed forwards (after one warm-up)
  const std::atomic<bool>* cancel = nullptr;
};

// Never throws: a failure comes back in LedgerEntry::error.
LedgerEntry checkRevision(const model::RevisionPtr& original, const model::RevisionPtr& revision,
                          const model::InputSet& inputs, const LedgerOptions& options);

}  // namespace graft::core::jobs
