#pragma once
// Per-module quantization error as JSON (graft-cli quant-error --json) and as a text table.
#include "core/run/module_error.h"

#include <QtCore/QJsonObject>

namespace graft::core::report {

// modules[] {module_path, sqnr_db, cosine, max_abs, numel, op, node, float_op, float_node, note?}
// in execution order, only_in_quantized[], only_in_float[], worst (a row, null when none).
// Infinite SQNR (equal values) and other non-finite numbers are written as null.
QJsonObject quantErrorReport(const run::ModuleErrorResult& result);
// One line per module in execution order, the worst named first.
QString quantErrorText(const run::ModuleErrorResult& result);

}  // namespace graft::core::report
