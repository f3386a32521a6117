#pragma once
// Profiling from plain inputs a UI can hold: a shape spec instead of tensors.
#include "core/profile/profiler.h"

#include <QtCore/QString>
#include <stdexcept>

namespace graft::core::model { class Document; class Revision; }

namespace graft::core::profile {

// The shape spec a document's model runs on by default: the sample's own input, or empty
// where the file does not say (after torch.jit.load, traced shapes are gone).
QString defaultInputSpec(const model::Document& document);

// The inputs could not be built (as opposed to the model failing on them).
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Profiles `revision` on the inputs `specs` describe (one per forward argument, as
// core/run/input_set.h parses them: "1x3x224x224[:dtype]", a tensor file, tuples, lists).
// Throws InputError for a malformed spec, std::runtime_error for a failed run; both readable.
Profile profileWithSpecs(const model::Revision& revision, const QStringList& specs, quint64 seed,
                         const ProfileOptions& options);

}  // namespace graft::core::profile
