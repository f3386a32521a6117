#include "core/model/pair_by_order.h"

#include <QtCore/QHash>

namespace graft::core::model {

void pairByOrder(const std::vector<QString>& keysA, const std::vector<QString>& keysB, std::vector<int>& partnerOfA,
                 std::vector<int>& partnerOfB) {
  QHash<QString, std::vector<int>> openB;  // B's unpaired elements per key, in order
  for (size_t ib = 0; ib < keysB.size(); ++ib)
    if (partnerOfB[ib] < 0) openB[keysB[ib]].push_back(int(ib));
  QHash<QString, size_t> taken;
  for (size_t ia = 0; ia < keysA.size(); ++ia) {
    if (partnerOfA[ia] >= 0) continue;
    auto it = openB.find(keysA[ia]);
    if (it == openB.end()) continue;
    size_t& k = taken[keysA[ia]];
    if (k >= it->size()) continue;
    const int ib = (*it)[k++];
    partnerOfA[ia] = ib;
    partnerOfB[ib] = int(ia);
  }
}

}  // namespace graft::core::model
