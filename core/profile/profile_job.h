#pragma once
// Profiling from plain inputs a UI can hold: a shape spec instead of tensors.
#include "core/profile/profiler.h"

#include <QtCore/QString>

namespace graft::core::model { class Document; class Revision; }

namespace graft::core::profile {

// The shape spec a document's model runs on by default: the sample's own input, or empty
// where the file does not say (after torch.jit.load, traced shapes are gone).
QString defaultInputSpec(const model::Document& document);

// Profiles `revision` on seeded random inputs described by `spec` ("1x3x224x224" or
// "1x3x224x224:float32", several separated by ","). Throws std::runtime_error with a readable
// message for a malformed spec or a failed run.
Profile profileWithSpec(const model::Revision& revision, const QString& spec, quint64 seed,
                        const ProfileOptions& options);

}  // namespace graft::core::profile
