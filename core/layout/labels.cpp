#include "core/layout/labels.h"

#include <QtCore/QRegularExpression>
#include <algorithm>

namespace graft::core::layout {

namespace {

// "[2, 2]" -> "2", "[3, 1]" -> "3×1"
QString compactList(const QString& v) {
  static const QRegularExpression nums(QStringLiteral("-?\\d+"));
  QStringList parts;
  for (auto it = nums.globalMatch(v); it.hasNext();) parts << it.next().captured();
  if (parts.isEmpty()) return v;
  if (std::all_of(parts.begin(), parts.end(), [&](const QString& p) { return p == parts.front(); }))
    return parts.front();
  return parts.join(QChar(0x00D7));
}

const model::ViewAttribute* attr(const model::ViewNode& n, const QString& name) {
  for (const auto& a : n.attributes)
    if (a.name == name) return &a;
  return nullptr;
}

// A convolution's kernel comes from its folded weight: "Tensor float32 [64, 3, 7, 7]" -> "7×7".
QString kernelFromWeight(const QString& weight) {
  static const QRegularExpression shape(QStringLiteral("\\[([\\d, ]+)\\]"));
  const auto m = shape.match(weight);
  if (!m.hasMatch()) return {};
  const QStringList dims = m.captured(1).split(QStringLiteral(", "));
  if (dims.size() < 3) return {};
  return dims.mid(2).join(QChar(0x00D7));
}

QString shapeOf(const QString& type) {
  // "float32 [1, 64, 56, 56]" -> "1×64×56×56"; nothing for "Tensor" or "List[Tensor]"
  static const QRegularExpression dims(QStringLiteral("\\[(\\d+(?:, \\d+)*)\\]"));
  const auto m = dims.match(type);
  if (!m.hasMatch()) return {};
  return m.captured(1).replace(QStringLiteral(", "), QString(QChar(0x00D7)));
}

double textWidth(const QStringList& lines) {
  qsizetype chars = 0;
  for (const auto& l : lines) chars = std::max(chars, l.size());
  return double(chars) * kCharWidth;
}

}  // namespace

QString edgeLabel(const model::ViewEdge& edge) {
  static const QRegularExpression typed(QStringLiteral(R"(^(\w+) \[([^\]]*)\]$)"));
  const auto m = typed.match(edge.type);
  if (!m.hasMatch()) return {};
  const QString dims = m.captured(2).isEmpty() ? QStringLiteral("scalar")
                                               : m.captured(2).replace(QStringLiteral(", "), QString(QChar(0x00D7)));
  return m.captured(1) == QLatin1String("float32") ? dims : dims + QLatin1Char(' ') + m.captured(1);
}

QStringList nodeLabel(const model::ViewNode& node) {
  QStringList lines{node.op};
  QStringList keys;
  if (const auto* w = attr(node, QStringLiteral("weight")); w && node.op.contains(QLatin1String("conv"))) {
    const QString k = kernelFromWeight(w->value);
    if (!k.isEmpty()) keys << QStringLiteral("k %1").arg(k);
  }
  if (const auto* k = attr(node, QStringLiteral("kernel_size")))
    keys << QStringLiteral("k %1").arg(compactList(k->value));
  if (const auto* s = attr(node, QStringLiteral("stride"));
      s && compactList(s->value) != QLatin1String("1") && s->value != QLatin1String("None"))
    keys << QStringLiteral("s %1").arg(compactList(s->value));
  if (const auto* g = attr(node, QStringLiteral("groups")); g && g->value != QLatin1String("1"))
    keys << QStringLiteral("g %1").arg(g->value);
  if (const auto* d = attr(node, QStringLiteral("dim")); d && keys.isEmpty())
    keys << QStringLiteral("dim %1").arg(compactList(d->value));
  if (!keys.isEmpty()) lines << keys.join(QStringLiteral(" · "));
  if (!node.outputs.isEmpty()) {
    const QString s = shapeOf(node.outputs.front().type);
    if (!s.isEmpty()) lines << s;
  }
  return lines;
}

QSizeF nodeSize(const model::ViewNode& node) {
  const QStringList lines = nodeLabel(node);
  return {std::max(60.0, textWidth(lines) + 2 * kPad), lines.size() * kLineHeight + 2 * kPad};
}

QStringList groupLabel(const model::ViewGroup& group) {
  const QString name = group.name.isEmpty() ? QStringLiteral("model") : group.name;
  return {group.typeName.isEmpty() ? name : QStringLiteral("%1: %2").arg(name, group.typeName),
          group.totalOps == 1 ? QStringLiteral("1 op") : QStringLiteral("%1 ops").arg(group.totalOps)};
}

QStringList terminalLabel(const model::GraphView& view, bool input, int port) {
  const auto& ports = input ? view.graphInputs : view.graphOutputs;
  const auto* vp = port < ports.size() ? &ports[port] : nullptr;
  QStringList lines;
  const QString path = vp ? vp->path : QString();
  const QString kind = input ? QStringLiteral("input") : QStringLiteral("output");
  const QString name = !path.isEmpty() ? path : input && vp ? vp->name : QString::number(port);
  // A port named for what it is ("output", torch.export's default) says it once.
  lines << (name == kind ? kind : QStringLiteral("%1 %2").arg(kind, name));
  if (vp && !vp->type.isEmpty()) lines << vp->type;
  return lines;
}

QSizeF terminalSize(const model::GraphView& view, bool input, int port) {
  const QStringList lines = terminalLabel(view, input, port);
  return {std::max(80.0, textWidth(lines) + 4 * kPad), lines.size() * kLineHeight + 2 * kPad};
}

QSizeF collapsedGroupSize(const model::ViewGroup& group) { return labelBoxSize(groupLabel(group)); }

QSizeF labelBoxSize(const QStringList& lines) {
  // room for the +/- toggle on the left
  return {std::max(80.0, textWidth(lines) + 2 * kPad + 18), lines.size() * kLineHeight + 2 * kPad};
}

QStringList repeatLabel(const model::ViewGroup& first, const model::ViewGroup& last, int count) {
  // The paths' common stem, not cutting into a number: "layer3.1" and "layer3.5" → "layer3.1–5".
  int stem = 0;
  while (stem < first.path.size() && stem < last.path.size() && first.path[stem] == last.path[stem]) ++stem;
  while (stem > 0 && first.path[stem - 1].isDigit()) --stem;
  const QString name = first.path.left(stem) + first.path.mid(stem) + QChar(0x2013) + last.path.mid(stem);
  return {QStringLiteral("%1 \u00d7%2").arg(name).arg(count),
          QStringLiteral("%1 \u00d7%2 · %3 ops each")
              .arg(first.typeName.isEmpty() ? QStringLiteral("module") : first.typeName)
              .arg(count)
              .arg(first.totalOps)};
}

}  // namespace graft::core::layout
