#pragma once
// What a tour's done-conditions are checked against: a snapshot of the application's state as
// plain data, filled by the GUI (or a test) and evaluated here, so conditions are testable
// without widgets.
#include "core/model/graph_view.h"
#include "core/tour/tour.h"

#include <QtCore/QHash>
#include <QtCore/QSet>

namespace graft::core::tour {

struct State {
  bool documentOpen = false;
  QString sample;                 // the open sample's name, empty for a file
  int ops = 0;                    // of the current revision
  QHash<QString, int> histogram;  // op kind -> count, current revision
  int revisions = 0;              // revisions in the document (the original counts)
  QString selectedOp, selectedModule;
  QSet<QString> expandedModules;  // module paths open on the canvas
  QSet<QString> visibleDocks;     // dockNames() that are shown
  enum class Compare { None, Equal, Differs };
  Compare compare = Compare::None;  // the last finished comparison
  QString firstDivergenceOp;
  bool firstDivergenceSelected = false;
  bool profiled = false;          // a profile finished for the current document
  bool savedLoads = false;        // the last tour save was read back with the same op count
};

struct Verdict {
  bool met = true;
  QStringList unmet;  // one sentence per condition that does not hold
};

Verdict evaluate(const Condition& condition, const State& state);

// The node `ref` names in `view`: kind equal to `ref.op`, module path equal to `ref.module` when
// given, the `ref.occurrence`-th such node in graph order; kNoNode when there is none.
model::NodeId findNode(const model::GraphView& view, const NodeRef& ref);

}  // namespace graft::core::tour
