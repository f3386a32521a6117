#include "ui/selection.h"

#include <algorithm>

namespace graft::ui {

using core::model::NodeId;

QVector<NodeId> Selection::nodes() const {
  QVector<NodeId> nodes;
  if (selected_ != core::model::kNoNode) nodes << selected_;
  QVector<NodeId> picked(picked_.begin(), picked_.end());
  std::sort(picked.begin(), picked.end());  // the set's own order changes from run to run
  return nodes << picked;
}

void Selection::select(NodeId id) {
  selected_ = id;
  picked_.clear();
  Q_EMIT changed(id);
}

void Selection::pick(NodeId id) {
  if (selected_ == core::model::kNoNode) return select(id);
  if (id == selected_) {
    const auto rest = picked_;
    select(rest.isEmpty() ? core::model::kNoNode : *std::min_element(rest.begin(), rest.end()));
    picked_ = rest;
    picked_.remove(selected_);
  } else if (!picked_.remove(id)) {
    picked_.insert(id);
  }
  Q_EMIT pickedChanged();
}

void Selection::clear(bool keepMain) {
  if (!keepMain) selected_ = core::model::kNoNode;
  picked_.clear();
}

}  // namespace graft::ui
