#pragma once
// The nodes the user selected: one main node (a click anywhere: canvas, Modules, IR, a dock's
// row) and the nodes Ctrl+click adds. The window wires what shows it (canvas, docks, inspector)
// to changed(); helpers select through it.
#include "core/model/ids.h"

#include <QtCore/QObject>
#include <QtCore/QSet>
#include <QtCore/QVector>

namespace graft::ui {

class Selection : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  core::model::NodeId selected() const { return selected_; }
  // The selected node first, then the Ctrl+clicked ones in id order.
  QVector<core::model::NodeId> nodes() const;
  const QSet<core::model::NodeId>& picked() const { return picked_; }

  // Makes `id` the one selected node (kNoNode: none); the picked ones go.
  void select(core::model::NodeId id);
  // Ctrl+click: adds `id`, or drops it when it is in; dropping the main node hands its place to
  // the lowest picked id.
  void pick(core::model::NodeId id);
  // Another document or revision: nothing stays selected or picked; `keepMain` keeps the main
  // node's id (a new revision of the same document still has it).
  void clear(bool keepMain = false);

 Q_SIGNALS:
  void changed(core::model::NodeId selected);
  void pickedChanged();

 private:
  core::model::NodeId selected_ = core::model::kNoNode;
  QSet<core::model::NodeId> picked_;
};

}  // namespace graft::ui
