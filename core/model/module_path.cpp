#include "core/model/module_path.h"

#include <torch/csrc/jit/ir/ir.h>

namespace graft::core::model {

QStringList modulePathParts(const torch::jit::Node* node, QStringList* typeNames) {
  QStringList path;
  auto stack = node->callstack();
  if (!stack) return path;
  for (const auto& entry : (*stack)->vec()) {
    const auto& info = std::get<2>(entry);
    if (!info || info->instance_name().empty()) continue;
    path << QString::fromStdString(info->instance_name());
    if (typeNames) {
      const auto type = info->class_type();
      *typeNames << (type && type->name() ? QString::fromStdString(type->name()->name()) : QString());
    }
  }
  return path;
}

QString modulePath(const torch::jit::Node* node) { return modulePathParts(node).join(QLatin1Char('.')); }

}  // namespace graft::core::model
