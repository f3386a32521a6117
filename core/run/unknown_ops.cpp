#include "core/run/unknown_ops.h"

#include "core/model/graph_walk.h"
#include "core/model/placeholder_ops.h"

#include <torch/script.h>

namespace graft::core::run {

QString unknownOperatorRefusal(const model::Revision& revision) {
  const torch::jit::Node* first = nullptr;
  int count = 0;
  model::forEachNode(*revision.graph(), [&](torch::jit::Node* n) {
    if (!model::isPlaceholderOperator(QString::fromStdString(n->kind().toQualString()))) return;
    if (!first) first = n;
    ++count;
  });
  if (!first) return {};
  const QString op = QString::fromStdString(first->kind().toQualString());
  const model::NodeId id = revision.idOf(first);
  QString where = QStringLiteral("node %1").arg(id);
  if (const QString path = revision.modulePathOf(id); !path.isEmpty()) where += QStringLiteral(", ") + path;
  QString text = QStringLiteral("not run: %1 (%2) is an operator this libtorch does not have")
                     .arg(op, where);
  if (count > 1) text += QStringLiteral(", and %1 more such node%2").arg(count - 1).arg(count > 2 ? "s" : "");
  text += QStringLiteral(". The Python library that defines torch.ops.%1 registers it (with torch.library) when it is "
                         "imported; run the program in Python with that library imported. Graft shows, diffs and "
                         "rewrites the program around the op, but cannot run it.")
              .arg(op.section(QStringLiteral("::"), 0, 0));
  return text;
}

}  // namespace graft::core::run
