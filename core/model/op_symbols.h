#pragma once
// Op symbols that libtorch's interned table (`c10::aten::…`) lacks in a torch release Graft
// builds against. Graft compiles against torch 2.11 (the oldest FindWheelTorch accepts) and the
// newest wheel; `c10::aten::numel` exists only since 2.12, and a build against the newest release
// alone hides that. Every symbol newer than 2.11 is made here, by name, and used from here:
// `packaging/check-torch211.sh` builds graft_core and graft-cli against the 2.11 wheel.
#include <ATen/core/symbol.h>

namespace graft::core::model::ops {

inline const c10::Symbol numel = c10::Symbol::fromQualString("aten::numel");

}  // namespace graft::core::model::ops
