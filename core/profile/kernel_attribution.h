#pragma once
// Per-node GPU kernel times from the profiler's device activity (Kineto/CUPTI), with no
// synchronisation per op. The device records each kernel (and memcpy, memset) with its start and
// end on the GPU and a correlation id; the host records each CUDA runtime call that launched one
// (cudaLaunchKernel, …) with the same id and the host time of the call. A kernel belongs to the
// top-level op event whose host time span holds its launch: the graph node that op event matched.
// Pure data in, data out: tested on the CPU against recorded activity lists (tst_profile).
#include "core/profile/profile.h"

#include <QtCore/QVector>

namespace graft::core::profile {

// One record of the profiler's activity trace, times already in the profile's clock (ns since
// the profile's origin, as OpEvent's).
struct ActivityRecord {
  QString name;
  bool onDevice = false;  // a kernel, memcpy or memset on the GPU; false: a runtime call on the host
  quint64 correlation = 0;
  qint64 startNs = 0;
  qint64 endNs = 0;
  qint64 stream = 0;      // the device's stream (resource id); unused on the host
};

struct KernelAttribution {
  QVector<KernelEvent> kernels;  // every device record, in start order; node and run where found
  int unattributed = 0;          // device records whose launch fell in no top-level op's span
};

// `ops` are a profile's events (any order; only depth-0 events launch on the graph's behalf, and
// their `node` and `run` are given to the kernels they launched). A launch that falls just outside
// every span (the two clocks' conversion, within `toleranceNs`) goes to the nearest op. Device
// records with no host record of their correlation (a launch through the driver API, say) go to
// the op that made both recorded calls whose ids enclose theirs (ids are handed out in call order),
// and are otherwise kept, unattributed.
KernelAttribution attributeKernels(const QVector<ActivityRecord>& activity, const QVector<OpEvent>& ops,
                                   qint64 toleranceNs = 2000);

// A correction to add to every activity record's time when the profiler's clock was not brought to
// the profile's (most launches then fall in no op span): the shift that puts the most launches
// inside top-level op spans, searched by placing each of the first launches in the middle of each
// of the first ops, then refined. 0 when at least half the launches already fall inside a span.
qint64 clockCorrection(const QVector<ActivityRecord>& activity, const QVector<OpEvent>& ops);

// Per node: the sum of its kernels' device time in each of `runs` runs.
QHash<model::NodeId, QVector<double>> kernelMsPerRun(const QVector<KernelEvent>& kernels, int runs);

}  // namespace graft::core::profile
