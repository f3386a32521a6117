#include "core/profile/profile_job.h"

#include "core/run/executor.h"
#include "core/run/input_set.h"

#include <torch/script.h>

#include <stdexcept>

namespace graft::core::profile {

Profile profileWithInputs(const model::Revision& revision, const run::InputSet& given, const ProfileOptions& options) {
  QString deviceError;
  const auto device = run::Executor::parseDevice(options.device, &deviceError);
  if (!device) throw InputError(deviceError.toStdString());
  std::vector<c10::IValue> inputs;
  for (const auto& v : given.values) inputs.push_back(run::toDevice(v, *device));
  return profileRevision(revision, inputs, options);
}

}  // namespace graft::core::profile
