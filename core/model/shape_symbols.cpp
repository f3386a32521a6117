#include "core/model/shape_symbols.h"

#include <QtCore/QHash>

#include <mutex>

namespace graft::core::model {

namespace {
std::mutex g_mutex;
QHash<QString, int64_t>& byName() {
  static QHash<QString, int64_t> table;
  return table;
}
QHash<int64_t, QString>& byValue() {
  static QHash<int64_t, QString> table;
  return table;
}
}  // namespace

c10::ShapeSymbol symbolNamed(const QString& name) {
  std::lock_guard lock(g_mutex);
  auto it = byName().find(name);
  // A symbol is its (negative) value; fromStaticSize rebuilds it from one.
  if (it != byName().end()) return c10::ShapeSymbol::fromStaticSize(*it);
  const c10::ShapeSymbol s = c10::ShapeSymbol::newSymbol();
  byName().insert(name, s.value());
  byValue().insert(s.value(), name);
  return s;
}

QString symbolName(const c10::ShapeSymbol& symbol) {
  if (symbol.is_static()) return QString::number(symbol.static_size());
  std::lock_guard lock(g_mutex);
  return byValue().value(symbol.value(), QStringLiteral("?"));
}

}  // namespace graft::core::model
