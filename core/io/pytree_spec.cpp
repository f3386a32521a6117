#include "core/io/pytree_spec.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace graft::core::io {

namespace {

TreeSpec specOf(const QJsonObject& o) {
  TreeSpec s;
  s.type = o.value(QLatin1String("type")).toString();
  // The context is JSON inside a string: a dict's keys, a namedtuple's fields, "null" otherwise.
  const QJsonDocument context = QJsonDocument::fromJson(o.value(QLatin1String("context")).toString().toUtf8());
  if (context.isArray())
    for (const auto& k : context.array())
      if (k.isString()) s.keys << k.toString();
      else if (k.isDouble()) s.keys << QString::number(k.toDouble());
  for (const auto& c : o.value(QLatin1String("children_spec")).toArray()) s.children.push_back(specOf(c.toObject()));
  if (s.keys.size() != int(s.children.size())) s.keys.clear();  // a context that is not a key list
  return s;
}

void collect(const TreeSpec& spec, const QString& prefix, QStringList& out) {
  if (spec.isLeaf()) {
    out << prefix;
    return;
  }
  for (size_t i = 0; i < spec.children.size(); ++i) {
    const QString name = spec.keys.isEmpty() ? QString::number(i) : spec.keys[int(i)];
    collect(spec.children[i], prefix.isEmpty() ? name : prefix + QLatin1Char('.') + name, out);
  }
}

bool isDict(const TreeSpec& spec) {
  return spec.type.endsWith(QLatin1String("dict")) || spec.type.endsWith(QLatin1String("OrderedDict"));
}

bool flattenInto(const c10::IValue& v, const TreeSpec& spec, const QString& where, std::vector<c10::IValue>& out,
                 QString* error) {
  const auto refuse = [&](const QString& why) {
    if (error) *error = QStringLiteral("%1: %2").arg(where.isEmpty() ? QStringLiteral("the inputs") : where, why);
    return false;
  };
  if (spec.isLeaf()) {
    out.push_back(v);
    return true;
  }
  const auto child = [&](size_t i) {
    return where.isEmpty() ? QString::number(i)
                           : where + QLatin1Char('.') + (spec.keys.isEmpty() ? QString::number(i) : spec.keys[int(i)]);
  };
  if (isDict(spec)) {
    if (!v.isGenericDict()) return refuse(QStringLiteral("a dict was expected"));
    const auto dict = v.toGenericDict();
    for (size_t i = 0; i < spec.children.size(); ++i) {
      const QString key = spec.keys.value(int(i));
      auto it = dict.find(c10::IValue(key.toStdString()));
      if (it == dict.end()) return refuse(QStringLiteral("no item '%1'").arg(key));
      if (!flattenInto(it->value(), spec.children[i], child(i), out, error)) return false;
    }
    return true;
  }
  std::vector<c10::IValue> items;
  if (v.isTuple()) items = v.toTupleRef().elements().vec();
  else if (v.isList()) items = v.toListRef().vec();
  else return refuse(QStringLiteral("a tuple or list was expected"));
  if (items.size() != spec.children.size())
    return refuse(QStringLiteral("%1 items, the program takes %2").arg(items.size()).arg(spec.children.size()));
  for (size_t i = 0; i < items.size(); ++i)
    if (!flattenInto(items[i], spec.children[i], child(i), out, error)) return false;
  return true;
}

}  // namespace

std::optional<TreeSpec> parseTreeSpec(const QString& serialized) {
  const QJsonDocument doc = QJsonDocument::fromJson(serialized.toUtf8());
  if (!doc.isArray() || doc.array().size() != 2 || !doc.array().at(1).isObject()) return std::nullopt;
  return specOf(doc.array().at(1).toObject());
}

QStringList leafPaths(const TreeSpec& spec, const QStringList& rootNames) {
  QStringList out;
  if (spec.isLeaf()) return {rootNames.value(0, QStringLiteral("0"))};
  for (size_t i = 0; i < spec.children.size(); ++i) {
    const QString name = i < size_t(rootNames.size()) ? rootNames[int(i)]
                         : spec.keys.isEmpty()        ? QString::number(i)
                                                      : spec.keys[int(i)];
    collect(spec.children[i], name, out);
  }
  return out;
}

QStringList inputPaths(const TreeSpec& inSpec, const QStringList& argNames) {
  if (inSpec.children.size() != 2) return leafPaths(inSpec, argNames);
  return leafPaths(inSpec.children[0], argNames) + leafPaths(inSpec.children[1]);
}

std::optional<std::vector<c10::IValue>> flattenBySpec(const c10::IValue& value, const TreeSpec& spec, QString* error) {
  std::vector<c10::IValue> out;
  if (!flattenInto(value, spec, QString(), out, error)) return std::nullopt;
  return out;
}

}  // namespace graft::core::io
