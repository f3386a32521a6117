#include "core/model/effect_ops.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <QtCore/QHash>

#include <algorithm>

namespace graft::core::model {

namespace {

// RPC calls are compiled specially (no registered schema): named here so they are always on the list.
const QStringList kRpcOps{QStringLiteral("prim::rpc_async"), QStringLiteral("prim::rpc_sync"),
                          QStringLiteral("prim::rpc_remote")};

// The rules that need only the name.
QString classifyName(const QString& name) {
  const QString space = name.section(QStringLiteral("::"), 0, 0);
  static const QStringList kDistributed{QStringLiteral("c10d"), QStringLiteral("_c10d_functional"),
                                        QStringLiteral("_c10d_functional_autograd"), QStringLiteral("symm_mem"),
                                        QStringLiteral("_dtensor")};
  if (kDistributed.contains(space)) return QStringLiteral("talks to other processes (distributed communication)");
  if (name == QLatin1String("aten::save")) return QStringLiteral("writes a file");
  if (name.startsWith(QLatin1String("prim::rpc_")) || name.startsWith(QLatin1String("aten::rpc_")))
    return QStringLiteral("calls another process (RPC)");
  if (name == QLatin1String("debugprims::load_tensor")) return QStringLiteral("reads a file");
  return {};
}

QString classify(const c10::FunctionSchema& schema) {
  if (QString why = classifyName(QString::fromStdString(schema.name())); !why.isEmpty()) return why;
  static const QStringList kOutsideNames{QStringLiteral("filename"), QStringLiteral("file"), QStringLiteral("path"),
                                         QStringLiteral("fd"), QStringLiteral("url"), QStringLiteral("uri"),
                                         QStringLiteral("host"), QStringLiteral("port")};
  for (const c10::Argument& a : schema.arguments()) {
    const auto kind = a.type()->kind();
    const bool text = kind == c10::TypeKind::StringType ||
                      (kind == c10::TypeKind::OptionalType &&
                       a.type()->containedType(0)->kind() == c10::TypeKind::StringType);
    if (text && kOutsideNames.contains(QString::fromStdString(a.name()).toLower()))
      return QStringLiteral("opens what its `%1` argument names").arg(QString::fromStdString(a.name()));
  }
  return {};
}

// Built once from the registry: operators registered later (a library loaded after the first
// look) are classified on demand by outsideEffectOf.
const QHash<QString, QString>& registryEffects() {
  static const QHash<QString, QString> effects = [] {
    QHash<QString, QString> out;
    for (const QString& rpc : kRpcOps) out.insert(rpc, classifyName(rpc));
    for (const auto& op : torch::jit::getAllOperators()) {
      const QString why = classify(op->schema());
      if (!why.isEmpty()) out.insert(QString::fromStdString(op->schema().name()), why);
    }
    return out;
  }();
  return effects;
}

}  // namespace

QString outsideEffectOf(const QString& qualifiedName) {
  const QString name = qualifiedName.section(QLatin1Char('.'), 0, 0);
  if (!name.contains(QLatin1String("::"))) return {};
  if (QString why = classifyName(name); !why.isEmpty()) return why;
  if (auto it = registryEffects().find(name); it != registryEffects().end()) return *it;
  const auto symbol = c10::Symbol::fromQualString(name.toStdString());
  for (const auto& op : torch::jit::getAllOperatorsFor(symbol))
    if (QString why = classify(op->schema()); !why.isEmpty()) return why;
  return {};
}

QStringList outsideEffectOps() {
  QStringList names = registryEffects().keys();
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace graft::core::model
