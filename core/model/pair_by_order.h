#pragma once
// Pairing two node sequences by key and order of occurrence: the k-th element of A with key K
// pairs with the k-th element of B with key K ("the second layer1.0 conv in A is the second
// layer1.0 conv in B"). Used between files, where nodes share no NodeIds.
#include <QtCore/QString>

#include <vector>

namespace graft::core::model {

// Pairs the elements not paired yet (partner < 0) and writes both partner arrays, so a second
// call with a coarser key pairs what the first left over.
void pairByOrder(const std::vector<QString>& keysA, const std::vector<QString>& keysB, std::vector<int>& partnerOfA,
                 std::vector<int>& partnerOfB);

}  // namespace graft::core::model
