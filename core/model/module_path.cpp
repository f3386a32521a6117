#include "core/model/module_path.h"

#include <torch/csrc/jit/ir/ir.h>

namespace graft::core::model {

QStringList modulePathParts(const torch::jit::Node* node, QStringList* typeNames) {
  QStringList path;
  auto stack = node->callstack();
  if (!stack) return path;
  for (const auto& entry : (*stack)->vec()) {
    const auto& info = std::get<2>(entry);
    // Scripted models record calls of their own methods as a pseudo-module "SELF".
    if (!info || info->instance_name().empty() || info->instance_name() == "SELF") continue;
    path << QString::fromStdString(info->instance_name());
    if (typeNames) {
      const auto type = info->class_type();
      *typeNames << (type && type->name() ? QString::fromStdString(type->name()->name()) : QString());
    }
  }
  return path;
}

QString modulePath(const torch::jit::Node* node) { return modulePathParts(node).join(QLatin1Char('.')); }

NodePlace placeFromCallStack(const torch::jit::Node* node) {
  NodePlace place;
  place.modulePath = modulePathParts(node, &place.moduleTypes);
  if (auto flc = node->sourceRange().file_line_col()) {
    place.sourceFile = QString::fromStdString(std::get<0>(*flc));
    place.sourceLine = static_cast<int>(std::get<1>(*flc));
  }
  if (node->sourceRange().source()) place.sourceText = QString::fromStdString(node->sourceRange().text().str()).left(200);
  return place;
}

}  // namespace graft::core::model
