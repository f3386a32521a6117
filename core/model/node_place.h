#pragma once
// Graft's own record of where a node sits for the user: its module path and source line. Kept in
// a NodeId-keyed table of each Revision (filled from the inlined call stacks at load, from a
// file's saved record, and inherited by new nodes from the nodes they derive from), never
// written into libtorch's structures.
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace graft::core::model {

struct NodePlace {
  QStringList modulePath;   // instance names, outermost first: {"layer1", "0", "conv1"}
  QStringList moduleTypes;  // each module's class name, where known ("Conv2d"; a program's qualified:
                            // "torch.nn.modules.conv.Conv2d")
  QString sourceFile;
  int sourceLine = 0;
  QString sourceText;       // the source range's text, at most 200 characters
  QString path() const { return modulePath.join(QLatin1Char('.')); }
};

}  // namespace graft::core::model
