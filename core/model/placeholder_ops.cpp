#include "core/model/placeholder_ops.h"

#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <QtCore/QSet>

#include <mutex>

namespace graft::core::model {

namespace {

std::mutex& registryLock() {
  static std::mutex lock;
  return lock;
}

QSet<QString>& placeholders() {
  static QSet<QString> names;
  return names;
}

}  // namespace

QString registerPlaceholderOperator(const QString& schemaText) {
  try {
    c10::FunctionSchema schema = torch::jit::parseSchema(schemaText.toStdString());
    const QString name = QString::fromStdString(schema.name());
    std::lock_guard<std::mutex> guard(registryLock());
    for (const auto& op : torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(schema.name())))
      if (op->schema().overload_name() == schema.overload_name()) return {};  // registered already
    const std::string what = schema.name();
    torch::jit::registerOperator(torch::jit::Operator(
        schemaText.toStdString(),
        [what](torch::jit::Stack&) {
          throw std::runtime_error(what + " is an operator this libtorch does not have; Graft cannot run it");
        },
        c10::AliasAnalysisKind::CONSERVATIVE));
    placeholders().insert(name);
    return {};
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0);
  }
}

bool isPlaceholderOperator(const QString& qualifiedName) {
  std::lock_guard<std::mutex> guard(registryLock());
  return placeholders().contains(qualifiedName);
}

}  // namespace graft::core::model
