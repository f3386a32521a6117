#pragma once
// Values written by torch.save (a zip with data.pkl and its tensors), read the way
// torch::pickle_load does but safely for damaged bytes: reads never pass the end of the buffer
// (pickle_load's in-memory reader does not check), and a pickle whose lengths or memo indices
// exceed its size is refused before libtorch allocates what it claims (io::checkPickleLengths).
#include <ATen/core/ivalue.h>

#include <QtCore/QByteArray>

namespace graft::core::io {

// The saved value; throws (c10::Error or std::runtime_error) on bytes that are not one.
c10::IValue loadSavedValue(const QByteArray& bytes);

}  // namespace graft::core::io
