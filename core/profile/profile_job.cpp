#include "core/profile/profile_job.h"

#include "core/model/document.h"
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
  const auto parsed = run::parseInputs(specs, seed);
  if (!parsed.inputs) throw InputError(parsed.error.toStdString());
  return profileRevision(revision, parsed.inputs->values, options);
}

}  // namespace graft::core::profile
