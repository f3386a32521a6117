#pragma once
// Profiling on resolved inputs (run::inputsFor: the one default-input path), placed on the device.
#include "core/profile/profiler.h"

#include <QtCore/QString>
#include <stdexcept>

namespace graft::core::model { class Revision; }
namespace graft::core::run { struct InputSet; }

namespace graft::core::profile {

// The inputs could not be built (as opposed to the model failing on them).
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Profiles `revision` on `inputs` moved to `options.device`. Throws InputError for an unknown or
// unavailable device, std::runtime_error for a failed run; both readable.
Profile profileWithInputs(const model::Revision& revision, const run::InputSet& inputs, const ProfileOptions& options);

}  // namespace graft::core::profile
