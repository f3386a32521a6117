#pragma once
// Profiling on resolved inputs (io::inputsFor: the one default-input path), placed on the device.
#include "core/model/diagnostic.h"
#include "core/model/revision.h"
#include "core/profile/profiler.h"

#include <QtCore/QString>
#include <optional>
#include <stdexcept>

namespace graft::core::model { struct InputSet; }

namespace graft::core::profile {

// The inputs could not be built (as opposed to the model failing on them).
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Profiles `revision` on `inputs` moved to `options.device`. Throws InputError for an unknown or
// unavailable device, std::runtime_error for a failed run; both readable. Inside the job only:
// callers outside core use runProfile.
Profile profileWithInputs(const model::Revision& revision, const model::InputSet& inputs,
                          const ProfileOptions& options);

struct ProfileResult {
  std::optional<Profile> profile;  // nullopt on failure
  bool inputError = false;         // the device could not take the inputs (the model did not fail)
  model::Diagnostics diagnostics;  // "profile" errors; the failing node where it can be found
  bool ok() const { return profile.has_value(); }
};

// The profiler's job boundary: never throws. When the model fails to run, one node-by-node run
// (run::Executor) names the node that raised.
ProfileResult runProfile(const model::RevisionPtr& revision, const model::InputSet& inputs,
                         const ProfileOptions& options);

}  // namespace graft::core::profile
