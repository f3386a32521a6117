#include "core/profile/profile_job.h"

#include "core/model/job_guard.h"
#include "core/model/revision.h"
#include "core/run/dimension_check.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"

#include <torch/script.h>

#include <stdexcept>

namespace graft::core::profile {

Profile profileWithInputs(const model::Revision& revision, const model::InputSet& given,
                          const ProfileOptions& options) {
  QString deviceError;
  const auto device = run::Executor::parseDevice(options.device, &deviceError);
  if (!device) throw InputError(deviceError.toStdString());
  std::vector<c10::IValue> inputs;
  for (const auto& v : given.values) inputs.push_back(run::toDevice(v, *device));
  return profileRevision(revision, inputs, options);
}

namespace {

// A failed profile, at the node it stopped: the instrumented run on the same device names it and
// says what that node raised, as compare does (never throws). `why` is the profiler's own message,
// kept as the details.
model::Diagnostic locateFailure(const model::RevisionPtr& revision, const model::InputSet& inputs,
                                const QString& device, const QString& why) {
  const QString job = QStringLiteral("profile");
  const auto located = model::guarded(
      [&]() -> std::optional<run::RunError> {
        run::Executor executor(revision);
        run::RunOptions options;
        options.instrumented = true;
        if (const auto d = run::Executor::parseDevice(device, nullptr)) options.device = *d;
        const auto result = executor.run(inputs, options);
        if (result.ok || result.error.node == model::kNoNode) return std::nullopt;
        return result.error;
      },
      [](const QString&) -> std::optional<run::RunError> { return std::nullopt; });
  auto d = located
               ? model::Diagnostic::error(job, QStringLiteral("the model failed to run: %1").arg(located->headline()),
                                          {}, located->node)
               : model::Diagnostic::error(
                     job, QStringLiteral("the model failed to run: %1").arg(why.section(QStringLiteral(" | "), 0, 0)));
  d.details = why;
  return d;
}

}  // namespace

ProfileResult runProfile(const model::RevisionPtr& revision, const model::InputSet& inputs,
                         const ProfileOptions& options) {
  ProfileResult result;
  const QString job = QStringLiteral("profile");
  // The checks every run makes (as compare's executor does): a program's static dimensions and
  // range_constraints, before anything is allocated for inputs it would refuse.
  if (const QString why = run::checkSymbolicDimensions(*revision->graph(), run::withDefaults(*revision, inputs.values),
                                                       revision->symbolRanges());
      !why.isEmpty()) {
    result.inputError = true;
    result.diagnostics.push_back(model::Diagnostic::error(job, why, QStringLiteral("give inputs the program accepts")));
    return result;
  }
  try {
    result.profile = profileWithInputs(*revision, inputs, options);
  } catch (const InputError& e) {
    result.inputError = true;
    result.diagnostics.push_back(model::Diagnostic::error(job, QString::fromUtf8(e.what()),
                                                          QStringLiteral("choose a device this machine has (cpu)")));
  } catch (...) {
    const QString why = model::currentExceptionText();
    result.diagnostics.push_back(locateFailure(revision, inputs, options.device, why));
  }
  return result;
}

}  // namespace graft::core::profile
