#pragma once
// Operators this libtorch does not have. A torch.export program may call a Python library's
// custom op (transformers' grouped_mm_fallback, anything made with torch.library); Graft opens,
// draws and diffs such a program with the op as an opaque node (io/pt2_import), and refuses a run
// that would reach it, naming the op and what provides it.
#include "core/model/revision.h"

#include <QtCore/QString>

namespace graft::core::run {

// Why a run of `revision` cannot happen here: the first operator it calls that no library loaded
// in this process registers, with its node and module, and how many more; empty when none.
QString unknownOperatorRefusal(const model::Revision& revision);

}  // namespace graft::core::run
