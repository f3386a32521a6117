#pragma once
// What a model prints while graft-cli runs it (aten::_print writes to std::cout, prim::Print goes
// through torch::jit's print handler) is the model's output, not graft-cli's: it goes to stderr,
// control characters shown as \xNN, at most kModelOutputLimit bytes, so a model can neither
// forge nor break `--json` on stdout. graft-cli itself writes stdout through C stdio only.
#include <cstddef>

namespace graft::cli {

inline constexpr std::size_t kModelOutputLimit = 64 << 10;

// Installs the redirect for the rest of the process; call once, before any model loads.
void captureModelOutput();

}  // namespace graft::cli
