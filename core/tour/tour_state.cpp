#include "core/tour/tour_state.h"

#include <QtCore/QJsonArray>

namespace graft::core::tour {

namespace {
QStringList stringsOf(const QJsonValue& v) {
  if (v.isString()) return {v.toString()};
  QStringList out;
  for (const auto& item : v.toArray()) out << item.toString();
  return out;
}
QString compareText(State::Compare c) {
  switch (c) {
    case State::Compare::Equal: return QStringLiteral("equal");
    case State::Compare::Differs: return QStringLiteral("different");
    case State::Compare::None: break;
  }
  return QStringLiteral("not run yet");
}
}  // namespace

Verdict evaluate(const Condition& condition, const State& s) {
  Verdict v;
  auto unmet = [&v](const QString& why) {
    v.met = false;
    v.unmet << why;
  };
  const QJsonObject& c = condition.keys;
  if (!c.isEmpty() && !s.documentOpen) unmet(QStringLiteral("no model is open"));
  for (auto it = c.begin(); it != c.end(); ++it) {
    const QString key = it.key();
    const QJsonValue want = it.value();
    if (key == QLatin1String("sample")) {
      if (s.sample != want.toString())
        unmet(QStringLiteral("the open model is %1, not sample \"%2\"")
                  .arg(s.sample.isEmpty() ? QStringLiteral("not that sample")
                                          : QStringLiteral("sample \"%1\"").arg(s.sample),
                       want.toString()));
    } else if (key == QLatin1String("selected_op")) {
      if (s.selectedOp != want.toString())
        unmet(QStringLiteral("select a %1 node (selected: %2)")
                  .arg(want.toString(), s.selectedOp.isEmpty() ? QStringLiteral("none") : s.selectedOp));
    } else if (key == QLatin1String("selected_module")) {
      if (s.selectedModule != want.toString())
        unmet(QStringLiteral("select a node in module %1 (selected: %2)")
                  .arg(want.toString(), s.selectedModule.isEmpty() ? QStringLiteral("none") : s.selectedModule));
    } else if (key == QLatin1String("has_op")) {
      for (const QString& op : stringsOf(want))
        if (s.histogram.value(op) == 0) unmet(QStringLiteral("the current revision has no %1").arg(op));
    } else if (key == QLatin1String("lacks_op")) {
      for (const QString& op : stringsOf(want))
        if (const int n = s.histogram.value(op); n > 0)
          unmet(QStringLiteral("the current revision still has %1 × %2").arg(n).arg(op));
    } else if (key == QLatin1String("op_count")) {
      const QJsonObject counts = want.toObject();
      for (auto k = counts.begin(); k != counts.end(); ++k)
        if (s.histogram.value(k.key()) != k.value().toInt())
          unmet(QStringLiteral("%1 × %2 expected, the current revision has %3")
                    .arg(k.value().toInt())
                    .arg(k.key())
                    .arg(s.histogram.value(k.key())));
    } else if (key == QLatin1String("ops")) {
      if (s.ops != want.toInt())
        unmet(QStringLiteral("%1 ops expected, the current revision has %2").arg(want.toInt()).arg(s.ops));
    } else if (key == QLatin1String("revisions_at_least")) {
      if (s.revisions < want.toInt())
        unmet(QStringLiteral("at least %1 revisions expected, the document has %2").arg(want.toInt()).arg(s.revisions));
    } else if (key == QLatin1String("compare")) {
      const auto wanted = want.toString() == QLatin1String("equal") ? State::Compare::Equal : State::Compare::Differs;
      if (s.compare != wanted)
        unmet(QStringLiteral("a comparison that finds the outputs %1 (last comparison: %2)")
                  .arg(wanted == State::Compare::Equal ? QStringLiteral("equal") : QStringLiteral("different"),
                       compareText(s.compare)));
    } else if (key == QLatin1String("first_divergence_op")) {
      if (s.firstDivergenceOp != want.toString())
        unmet(QStringLiteral("the first divergence should be at a %1 node (it is at %2)")
                  .arg(want.toString(), s.firstDivergenceOp.isEmpty() ? QStringLiteral("none") : s.firstDivergenceOp));
    } else if (key == QLatin1String("first_divergence_selected")) {
      if (s.firstDivergenceSelected != want.toBool())
        unmet(want.toBool() ? QStringLiteral("select the first divergence")
                            : QStringLiteral("select another node than the first divergence"));
    } else if (key == QLatin1String("profiled")) {
      if (s.profiled != want.toBool())
        unmet(want.toBool() ? QStringLiteral("run a profile (Profile dock)") : QStringLiteral("no profile expected"));
    } else if (key == QLatin1String("saved_loads")) {
      if (s.savedLoads != want.toBool())
        unmet(want.toBool() ? QStringLiteral("save the revision and read it back")
                            : QStringLiteral("no saved file expected"));
    } else if (key == QLatin1String("expanded")) {
      if (!s.expandedModules.contains(want.toString()))
        unmet(QStringLiteral("expand module %1 on the canvas").arg(want.toString()));
    } else if (key == QLatin1String("dock_visible")) {
      if (!s.visibleDocks.contains(want.toString())) unmet(QStringLiteral("show the %1 dock").arg(want.toString()));
    }
  }
  return v;
}

model::NodeId findNode(const model::GraphView& view, const NodeRef& ref) {
  int seen = 0;
  for (const auto& n : view.nodes)
    if (n.kind == ref.op && (ref.module.isEmpty() || n.modulePath == ref.module) && seen++ == ref.occurrence)
      return n.id;
  return model::kNoNode;
}

}  // namespace graft::core::tour
