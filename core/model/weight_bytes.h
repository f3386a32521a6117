#pragma once
// How many bytes a revision's weights hold, from their sizes alone: counting never reads (or pages
// in) a weight's bytes, so it is free on a program whose weights are mapped from its file.
#include "core/model/revision.h"

namespace graft::core::model {

// Bytes of the distinct storages the revision's graph constants and module attributes use (bytes
// shared by tied weights count once).
qint64 weightBytes(const Revision& revision);

}  // namespace graft::core::model
