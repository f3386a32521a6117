#include "core/profile/profile_job.h"

#include "core/model/document.h"
#include "core/run/executor.h"
#include "core/run/input_set.h"
#include "core/samples/samples.h"

#include <torch/script.h>

#include <stdexcept>

namespace graft::core::profile {

QString defaultInputSpec(const model::Document& document) {
  const auto* sample = samples::find(document.sampleName());
  return sample ? samples::inputSpec(*sample) : QString();
}

Profile profileWithSpecs(const model::Revision& revision, const QStringList& specs, quint64 seed,
                         const ProfileOptions& options) {
  if (specs.isEmpty()) throw InputError("no input given: enter a shape such as 1x3x224x224");
  QString deviceError;
  const auto device = run::Executor::parseDevice(options.device, &deviceError);
  if (!device) throw InputError(deviceError.toStdString());
  const auto parsed = run::parseInputs(specs, seed);
  if (!parsed.inputs) throw InputError(parsed.error.toStdString());
  std::vector<c10::IValue> inputs;
  for (const auto& v : parsed.inputs->values) inputs.push_back(run::toDevice(v, *device));
  return profileRevision(revision, inputs, options);
}

}  // namespace graft::core::profile
