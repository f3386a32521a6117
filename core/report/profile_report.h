#pragma once
// `graft-cli profile` JSON and the Chrome-trace export of a Profile.
#include <QtCore/QJsonObject>

namespace graft::core::profile { struct Profile; }

namespace graft::core::report {

// Keys: runs, warmup, device, median_ms, p10_ms, p90_ms, forward_median_ms, overhead,
// nodes[] {node, op, module_path, self_ms_median, ...}, by_op[] {op, nodes, total_ms_median};
// with memory recorded also peak_bytes, memory_run_ms and each node's alloc_bytes; kernels_recorded,
// and on CUDA kernels_per_run, unattributed_kernels, kernel_ms_median (all kernels' device time per
// run) and each node's kernels and kernel_ms_median; kernel_note where kernels could not be had.
QJsonObject profileReport(const profile::Profile& profile);

// {"traceEvents": [...]}: one complete ("X") event per op call, microseconds, one lane per thread,
// for chrome://tracing and Perfetto; with memory recorded, "memory" counter ("C") events too; on
// CUDA each kernel as a "kernel" event of a GPU process (pid 2), one row per stream, under the CPU's.
QJsonObject chromeTrace(const profile::Profile& profile, const QString& modelName);

}  // namespace graft::core::report
