#pragma once
// What an edit can aim at on a node, for the GUI's dialogs: its edge inputs (Insert op…) and its
// folded constant arguments (Edit value…), in plain Qt types.
#include "core/model/ids.h"

#include <QtCore/QString>
#include <QtCore/QVector>

namespace graft::core::model { class Revision; }

namespace graft::core::edit {

struct InputSlot {
  int index = 0;   // the node's input index
  QString name;    // schema argument name or value name
  QString type;
};

struct ConstantSlot {
  QString argument;  // schema argument name
  QString value;     // current value as editable text ("[1, 1]", "0.1", "True")
  QString type;      // the argument's schema type ("int[]", "float")
};

// Inputs of `node` fed by computed values (not folded constants or weights).
QVector<InputSlot> edgeInputs(const model::Revision& revision, model::NodeId node);
// Arguments of `node` fed by folded non-tensor constants.
QVector<ConstantSlot> constantArguments(const model::Revision& revision, model::NodeId node);

}  // namespace graft::core::edit
