#pragma once
// Node times of two profiles paired through provenance (run/correspondence): an unchanged node's
// time against its copy's, and a change group's time (the folded conv) against the time of the
// nodes it replaced (conv + batch_norm). The Profile dock's node table and heatmap delta read it.
#include "core/model/revision.h"
#include "core/profile/profile.h"

#include <vector>

namespace graft::core::profile {

struct PairedTime {
  model::NodeId after = model::kNoNode;  // the node (or first node of the group) on the after side
  QString label;                         // "layer1.0.conv1 aten::conv2d" or "change 3: … → …"
  QString modulePath;
  double beforeMs = 0, afterMs = 0;      // medians of self time, summed over a group's nodes
  // Where a side recorded GPU kernels (Profile::kernelsRecorded): the medians of the device time of
  // the kernels the row's nodes launched, summed the same way, and the after side's kernels per run.
  double beforeKernelMs = 0, afterKernelMs = 0;
  int afterKernels = 0;
  int change = 0;                        // 0: one unchanged node; N: change group N
  std::vector<model::NodeId> afterNodes; // every after-side node the row covers
};

// Rows in the after revision's graph order; nodes that did not run on a side count 0 there.
std::vector<PairedTime> pairNodeTimes(const Profile& before, const model::Revision& revBefore, const Profile& after,
                                      const model::Revision& revAfter);

}  // namespace graft::core::profile
