#include "core/model/module_calls.h"

#include <algorithm>

namespace graft::core::model {

void CallNumbering::number(NodePlace& place, const QStringList& callKeys) {
  place.moduleCalls.clear();
  QString module;
  for (qsizetype i = 0; i < place.modulePath.size(); ++i) {
    module = i == 0 ? place.modulePath[i] : module + QLatin1Char('.') + place.modulePath[i];
    auto& calls = seen_[module];
    const QString key = callKeys.value(i);
    auto it = calls.constFind(key);
    if (it == calls.constEnd()) it = calls.insert(key, int(calls.size()) + 1);
    place.moduleCalls << *it;
  }
  if (std::all_of(place.moduleCalls.cbegin(), place.moduleCalls.cend(), [](int call) { return call == 1; }))
    place.moduleCalls.clear();
}

}  // namespace graft::core::model
