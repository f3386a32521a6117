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
  QString error;    // why no pattern could be written
  bool ok() const { return error.isEmpty(); }
};

// Values coming from outside the selection (weights included) become graph inputs. Scalar and
// None constants become inputs too, each with a condition pinning its value, so the draft matches
// the same settings (literal constants in a pattern would make SubgraphRewriter skip matches that
// share a pooled constant); lists of them are copied in. The pattern returns the
// one selected value used outside the selection (or the last node's, when none is).
PatternDraft patternFromNodes(const model::Revision& revision, const QVector<model::NodeId>& nodes);

}  // namespace graft::core::rewrite
