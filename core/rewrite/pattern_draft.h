#pragma once
// "New rule from selection": the selected op nodes written as a pattern graph to start a rule
// from. No libtorch types here.
#include "core/model/revision.h"

#include <QtCore/QStringList>
#include <QtCore/QVector>

namespace graft::core::rewrite {

struct PatternDraft {
  QString pattern;  // TorchScript IR: graph(%inputs...): <the nodes> return (%result)
  QStringList conditions;  // `%v == LITERAL` for every scalar constant the nodes read
  // The same nodes as a Python rule file: `pattern` and `replacement` (a copy to edit) calling
  // torch.ops.aten overloads; tensors coming in are arguments (annotated with their rank where the
  // graph knows it), constants are written in place. Empty with `pythonError` set when the nodes
  // cannot be written so (a non-tensor value from outside, an op with no overload to call).
  QString python;
  QString pythonError;
  QString error;    // why no pattern could be written
  bool ok() const { return error.isEmpty(); }
};

// Values coming from outside the selection (weights included) become graph inputs. Scalar and
// None constants become inputs too, each with a condition pinning its value, so the draft matches
// the same settings (literal constants in a pattern would make SubgraphRewriter skip matches that
// share a pooled constant); lists of them are copied in. The pattern returns the
// one selected value used outside the selection (or the last node's, when none is). `python` holds
// the Python form of the same pattern.
PatternDraft patternFromNodes(const model::Revision& revision, const QVector<model::NodeId>& nodes);

}  // namespace graft::core::rewrite
