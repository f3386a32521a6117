#pragma once
// Graft's own record of where a node sits for the user: its module path and source line. Kept in
// a NodeId-keyed table of each Revision (filled from the inlined call stacks at load, from a
// file's saved record, and inherited by new nodes from the nodes they derive from), never
// written into libtorch's structures.
//
// A module called more than once (ResNet's `relu` after bn1 and again after the residual add) is
// one module but several calls: `moduleCalls` numbers each level's call of its module, counted
// over the whole forward in call order, as torch.export numbers them (`relu`, `relu@1`). The
// drawing gives every call its own group and tables name it `layer1.0.relu (2)` (callPath()),
// while rules and pairing by module match the module itself (path()).
#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <algorithm>

namespace graft::core::model {

struct NodePlace {
  QStringList modulePath;   // instance names, outermost first: {"layer1", "0", "conv1"}
  QStringList moduleTypes;  // each module's class name, where known ("Conv2d"; a program's qualified:
                            // "torch.nn.modules.conv.Conv2d")
  QList<int> moduleCalls;   // each level's call of its module, 1-based; a missing entry is the first call
  QString sourceFile;
  int sourceLine = 0;
  QString sourceText;       // the source range's text, at most 200 characters

  // The module itself, the same for every call: "layer1.0.relu".
  QString path() const { return modulePath.join(QLatin1Char('.')); }
  // Level i's call number (1 for the first call).
  int callAt(qsizetype i) const { return i < moduleCalls.size() ? moduleCalls[i] : 1; }
  // Level i as groups and tables name it: "relu", or "relu (2)" for the module's second call.
  QString callName(qsizetype i) const {
    const int call = callAt(i);
    return call > 1 ? QStringLiteral("%1 (%2)").arg(modulePath[i]).arg(call) : modulePath[i];
  }
  // The module call, as groups and tables name it: "layer1.0.relu (2)".
  QString callPath() const {
    QStringList parts;
    for (qsizetype i = 0; i < modulePath.size(); ++i) parts << callName(i);
    return parts.join(QLatin1Char('.'));
  }
  // Keeps the first `levels` levels (the module holding a node made from several).
  void truncate(qsizetype levels) {
    modulePath = modulePath.mid(0, levels);
    moduleTypes = moduleTypes.mid(0, std::min(levels, moduleTypes.size()));
    moduleCalls = moduleCalls.mid(0, std::min(levels, moduleCalls.size()));
  }
};

}  // namespace graft::core::model
