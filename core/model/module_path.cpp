#include "core/model/module_path.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

namespace graft::core::model {

QStringList modulePathParts(const torch::jit::Node* node, QStringList* typeNames, QStringList* callKeys) {
  QStringList path;
  auto stack = node->callstack();
  if (!stack) return path;
  QString sites;  // the call sites from the outermost call to this one, methods of one module included
  for (const auto& entry : (*stack)->vec()) {
    if (callKeys) {
      const auto& site = std::get<1>(entry);
      sites += QStringLiteral("%1:%2:%3:%4/").arg(quintptr(std::get<0>(entry))).arg(quintptr(site.source().get()))
                   .arg(site.start()).arg(site.end());
    }
    const auto& info = std::get<2>(entry);
    // Scripted models record calls of their own methods as a pseudo-module "SELF".
    if (!info || info->instance_name().empty() || info->instance_name() == "SELF") continue;
    path << QString::fromStdString(info->instance_name());
    if (typeNames) {
      const auto type = info->class_type();
      *typeNames << (type && type->name() ? QString::fromStdString(type->name()->name()) : QString());
    }
    if (callKeys) *callKeys << sites;
  }
  return path;
}

QString modulePath(const torch::jit::Node* node) { return modulePathParts(node).join(QLatin1Char('.')); }

NodePlace placeFromCallStack(const torch::jit::Node* node, QStringList* callKeys) {
  NodePlace place;
  place.modulePath = modulePathParts(node, &place.moduleTypes, callKeys);
  if (auto flc = node->sourceRange().file_line_col()) {
    place.sourceFile = QString::fromStdString(std::get<0>(*flc));
    place.sourceLine = static_cast<int>(std::get<1>(*flc));
  }
  if (node->sourceRange().source())
    place.sourceText = QString::fromStdString(node->sourceRange().text().str()).left(200);
  return place;
}

ModuleNames moduleNamesOf(const torch::jit::Module& module) {
  ModuleNames names;
  for (const auto& item : module.named_modules()) {
    if (item.name.empty()) continue;
    const auto type = item.value.type();
    names.insert(QString::fromStdString(item.name),
                 type->name() ? QString::fromStdString(type->name()->name()) : QString());
  }
  return names;
}

void completeContainerPaths(QStringList& parts, const QStringList& types, const ModuleNames& names,
                            QHash<QString, QString>& cache) {
  QString at;  // the object path of the parts so far
  for (qsizetype i = 0; i < parts.size(); ++i) {
    const QString prefix = at.isEmpty() ? QString() : at + QLatin1Char('.');
    const QString direct = prefix + parts[i];
    if (names.contains(direct)) {
      at = direct;
      continue;
    }
    const QString type = types.value(i);
    const QString key = direct + QLatin1Char('|') + type;
    auto hit = cache.find(key);
    if (hit == cache.end()) {
      QString found;
      int count = 0;
      const QString tail = QLatin1Char('.') + parts[i];
      for (auto it = names.begin(); it != names.end(); ++it)
        if (it.key().startsWith(prefix) && it.key().endsWith(tail) && it.key().size() > direct.size() &&
            (type.isEmpty() || it.value() == type)) {
          found = it.key();
          ++count;
        }
      hit = cache.insert(key, count == 1 ? found : QString());
    }
    if (hit->isEmpty()) {
      at = direct;
      continue;
    }
    parts[i] = hit->mid(prefix.size());
    at = *hit;
  }
}

}  // namespace graft::core::model
