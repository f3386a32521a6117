#pragma once
// The History ledger's check of a revision (core/jobs/ledger.h) with the revision run on a remote
// device: compared against the original as a remote compare does (the original and the float64
// reference here, the revision on the host: remote_compare.h), then timed there (the median of
// the host's plain forwards, remote_profile.h). The same LedgerEntry keys as a local check.
#include "core/jobs/ledger.h"
#include "core/remote/remote_compare.h"

namespace graft::core::remote {

// `model`: the revision saved beforehand (remote_model.h), so the job holds no Document.
// peakBytes is the host's CUDA peak, -1 on its CPU (not measured there). Never throws.
jobs::LedgerEntry checkRevisionRemote(const model::RevisionPtr& original, const RemoteModel& model,
                                      const model::RevisionPtr& revision, const model::InputSet& inputs,
                                      const jobs::LedgerOptions& options, const RemoteDevice& device,
                                      const AgentConnection::Progress& progress = {});

}  // namespace graft::core::remote
