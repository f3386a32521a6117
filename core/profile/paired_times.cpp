#include "core/profile/paired_times.h"

#include "core/run/correspondence.h"

#include <unordered_map>

namespace graft::core::profile {

std::vector<PairedTime> pairNodeTimes(const Profile& before, const model::Revision& revBefore, const Profile& after,
                                      const model::Revision& revAfter) {
  std::unordered_map<model::NodeId, double> msBefore, msAfter, kernelBefore, kernelAfter, kernelsAfter;
  for (const auto& n : before.nodes) {
    msBefore[n.node] += n.selfMs.median;
    kernelBefore[n.node] += n.kernelMs.median;
  }
  for (const auto& n : after.nodes) {
    msAfter[n.node] += n.selfMs.median;
    kernelAfter[n.node] += n.kernelMs.median;
    kernelsAfter[n.node] += n.kernels;
  }
  auto timeOf = [](const std::unordered_map<model::NodeId, double>& ms, model::NodeId id) {
    auto it = ms.find(id);
    return it == ms.end() ? 0.0 : it->second;
  };
  const run::Correspondence c = run::correspond(revBefore, revBefore.lineage(), revAfter, revAfter.lineage());
  std::vector<PairedTime> rows;
  std::vector<bool> groupShown(c.groups.size(), false);
  for (model::NodeId id : revAfter.opNodeIds()) {
    if (auto a = c.aOfB.find(id); a != c.aOfB.end()) {
      PairedTime row;
      row.after = id;
      row.modulePath = revAfter.modulePathOf(id);
      row.label = (row.modulePath.isEmpty() ? QString() : row.modulePath + QLatin1Char(' ')) + revAfter.kindOf(id);
      row.beforeMs = timeOf(msBefore, a->second);
      row.afterMs = timeOf(msAfter, id);
      row.beforeKernelMs = timeOf(kernelBefore, a->second);
      row.afterKernelMs = timeOf(kernelAfter, id);
      row.afterKernels = int(timeOf(kernelsAfter, id));
      row.afterNodes = {id};
      rows.push_back(std::move(row));
      continue;
    }
    auto g = c.groupOfB.find(id);
    if (g == c.groupOfB.end() || groupShown[size_t(g->second)]) continue;
    groupShown[size_t(g->second)] = true;
    const run::ChangeGroup& group = c.groups[size_t(g->second)];
    PairedTime row;
    row.after = id;
    row.change = group.number;
    row.modulePath = revAfter.modulePathOf(id);
    row.label = group.label();
    for (auto a : group.a) {
      row.beforeMs += timeOf(msBefore, a);
      row.beforeKernelMs += timeOf(kernelBefore, a);
    }
    for (auto b : group.b) {
      row.afterMs += timeOf(msAfter, b);
      row.afterKernelMs += timeOf(kernelAfter, b);
      row.afterKernels += int(timeOf(kernelsAfter, b));
    }
    row.afterNodes = group.b;
    rows.push_back(std::move(row));
  }
  // Groups with nothing left on the after side (a removed node): their time went away.
  for (size_t i = 0; i < c.groups.size(); ++i) {
    if (groupShown[i]) continue;
    PairedTime row;
    row.change = c.groups[i].number;
    row.label = c.groups[i].label();
    for (auto a : c.groups[i].a) {
      row.beforeMs += timeOf(msBefore, a);
      row.beforeKernelMs += timeOf(kernelBefore, a);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace graft::core::profile
