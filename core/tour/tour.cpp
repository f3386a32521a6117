#include "core/tour/tour.h"

#include <QtCore/QHash>

namespace graft::core::tour {

namespace {
const QHash<QString, QStringList>& actionArgs() {
  static const QHash<QString, QStringList> args = {
      {QStringLiteral("open_sample"), {QStringLiteral("sample")}},
      {QStringLiteral("select"), {QStringLiteral("op")}},
      {QStringLiteral("expand"), {QStringLiteral("module")}},
      {QStringLiteral("show_dock"), {QStringLiteral("dock")}},
      {QStringLiteral("apply_rule"), {QStringLiteral("rule")}},
      {QStringLiteral("replace_op"), {QStringLiteral("op"), QStringLiteral("to")}},
      {QStringLiteral("compare"), {}},
      {QStringLiteral("select_first_divergence"), {}},
      {QStringLiteral("profile"), {}},
      {QStringLiteral("save"), {QStringLiteral("file")}},
      {QStringLiteral("fit"), {}},
  };
  return args;
}
}  // namespace

const QStringList& actionKinds() {
  static const QStringList kinds = [] {
    QStringList k = actionArgs().keys();
    k.sort();
    return k;
  }();
  return kinds;
}

QStringList requiredArgs(const QString& kind) { return actionArgs().value(kind); }

const QStringList& conditionKeys() {
  static const QStringList keys = {
      QStringLiteral("sample"),        QStringLiteral("selected_op"),     QStringLiteral("selected_module"),
      QStringLiteral("has_op"),        QStringLiteral("lacks_op"),        QStringLiteral("op_count"),
      QStringLiteral("ops"),           QStringLiteral("revisions_at_least"), QStringLiteral("compare"),
      QStringLiteral("first_divergence_op"), QStringLiteral("first_divergence_selected"),
      QStringLiteral("profiled"),      QStringLiteral("saved_loads"),     QStringLiteral("expanded"),
      QStringLiteral("dock_visible"),
  };
  return keys;
}

const QStringList& dockNames() {
  static const QStringList names = {QStringLiteral("modules"), QStringLiteral("overview"), QStringLiteral("ir"),
                                    QStringLiteral("inspector"), QStringLiteral("rewrites"), QStringLiteral("history"),
                                    QStringLiteral("compare"), QStringLiteral("profile"), QStringLiteral("tour")};
  return names;
}

}  // namespace graft::core::tour
