#pragma once
// compare results as JSON (graft-cli compare --json, the Compare dock) and as text.
#include "core/run/compare.h"

#include <QtCore/QJsonObject>

namespace graft::core::report {

// outputs[] {index, max_abs, max_rel, mismatched, allclose, cosine}, equal, first_divergence
// (null when none), unmatched_a/unmatched_b counts and, with `perNode`, nodes[].
// Non-finite numbers (NaN, shape mismatches) are written as null.
// `outputNames`: the program's outputs by path ("logits", "past.0.1"); each output gets its
// `name` when they line up with the compared tensors.
QJsonObject compareReport(const run::CompareResult& result, const run::Tolerance& tol, bool perNode,
                          const QStringList& outputNames = {});
// One diff: max_abs, max_rel, mismatched, numel, allclose, cosine, sqnr_db (and note).
QJsonObject tensorDiffJson(const run::TensorDiff& diff);
QString compareText(const run::CompareResult& result, const run::Tolerance& tol, const QStringList& outputNames = {});

}  // namespace graft::core::report
