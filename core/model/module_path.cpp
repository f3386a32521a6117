#include "core/model/module_path.h"

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

}  // namespace graft::core::model
