#pragma once
// The check before every run: does any graph the run can reach hold an op that reaches outside
// the process (model/effect_ops.h)? Forward, the blocks of its ifs and loops, the methods and
// functions it calls and the subgraphs its nodes carry are all walked. Executor::run and
// DeviceForward (so the profiler, compare, shapes, the save check and the History ledger) refuse
// such a run unless the document's source is trusted.
#include "core/model/ids.h"
#include "core/model/revision.h"

#include <QtCore/QString>
#include <vector>

namespace graft::core::run {

struct OutsideEffect {
  QString op;          // "aten::save"
  QString why;         // "writes a file"
  model::NodeId node = model::kNoNode;  // kNoNode inside a called method or function
  QString where;       // "node 7, layer1.conv", "method keep", "forward.py:12"
};

// Every op with an outside effect the revision's forward can reach, in graph order.
std::vector<OutsideEffect> outsideEffects(const model::Revision& revision);

// Why a run of `revision` is refused: the first effect named, how many more, and what to do.
// Empty when the revision is trusted or reaches nothing outside.
QString untrustedRunRefusal(const model::Revision& revision);

}  // namespace graft::core::run
