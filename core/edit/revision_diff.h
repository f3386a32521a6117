#pragma once
// What changed between a revision and its parent, by NodeId, for highlighting and the History dock.
#include "core/model/ids.h"

#include <QtCore/QJsonObject>
#include <QtCore/QString>
#include <QtCore/QVector>

namespace graft::core::model { class Revision; }

namespace graft::core::edit {

struct ConstantChange {
  model::NodeId node = model::kNoNode;  // the consumer, present in both revisions
  QString argument;                     // schema argument name, or "input N"
  QString before;
  QString after;
};

struct RevisionDiff {
  QVector<model::NodeId> added;    // in `after` only (graph order)
  QVector<model::NodeId> removed;  // in `before` only (graph order)
  QVector<model::NodeId> rewired;  // in both, reading a different producer (constants aside)
  QVector<ConstantChange> constants;
  bool empty() const { return added.isEmpty() && removed.isEmpty() && rewired.isEmpty() && constants.isEmpty(); }
  QJsonObject toJson() const;
};

RevisionDiff diff(const model::Revision& before, const model::Revision& after);

}  // namespace graft::core::edit
