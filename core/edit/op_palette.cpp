#include "core/edit/op_palette.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <algorithm>

namespace graft::core::edit {

OpPalette OpPalette::fromRegistry() {
  OpPalette p;
  for (const auto& op : torch::jit::getAllOperators()) {
    const auto& s = op->schema();
    p.entries_.push_back({QString::fromStdString(s.name()), QString::fromStdString(s.overload_name()),
                          QString::fromStdString(c10::toString(s))});
  }
  std::sort(p.entries_.begin(), p.entries_.end(), [](const OpEntry& a, const OpEntry& b) {
    return a.name != b.name ? a.name < b.name : a.overload < b.overload;
  });
  return p;
}

QVector<OpEntry> OpPalette::search(const QString& text, int limit, bool withOutVariants) const {
  const QString needle = text.trimmed();
  QVector<OpEntry> prefix, inside;
  for (const auto& e : entries_) {
    if (!withOutVariants && (e.overload == QLatin1String("out") || e.overload.endsWith(QLatin1String("_out"))))
      continue;
    const int at = e.name.indexOf(needle, 0, Qt::CaseInsensitive);
    if (at < 0) continue;
    const int sep = e.name.indexOf(QLatin1String("::"));
    const bool startsName = at == 0 || (sep >= 0 && at == sep + 2);
    (startsName ? prefix : inside).push_back(e);
  }
  prefix += inside;
  if (prefix.size() > limit) prefix.resize(limit);
  return prefix;
}

}  // namespace graft::core::edit
