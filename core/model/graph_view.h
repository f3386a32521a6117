#pragma once
// What people see of a Revision: op nodes with folded attributes, typed edges and the module tree.
// Plain data with no libtorch types, so the UI can hold it.
#include "core/model/ids.h"
#include "core/model/symbol_ranges.h"

#include <QtCore/QHash>
#include <QtCore/QString>
#include <QtCore/QVector>

namespace graft::core::model {

class Document;

class Revision;

struct ViewAttribute {
  QString name;   // the schema argument name, e.g. "stride"
  QString value;  // a readable rendering, e.g. "[2, 2]" or "Tensor float32 [64, 3, 7, 7]"
  QString kind;   // "constant", "list", "tensor" or "parameter"
};

struct ViewPort {
  QString name;  // schema argument / value debug name
  QString type;  // readable type, e.g. "float32 [1, 64, 56, 56]"
  QString path;  // a graph input's or output's path in the program's signature ("logits", "d.a"), when known
};

struct ViewNode {
  NodeId id = kNoNode;
  QString kind;     // "aten::_convolution"
  QString op;       // "_convolution"
  QString schema;   // the operator's schema, empty where it has none
  QVector<ViewAttribute> attributes;
  QVector<ViewPort> inputs;   // inputs that are edges (not folded)
  QVector<ViewPort> outputs;
  int group = 0;              // index into GraphView::groups
  QString modulePath;  // the module call, "layer1.0.conv1" ("layer1.0.relu (2)" for a second call), empty at top level
  QString instancePath;       // the module itself, the same for each of its calls: "layer1.0.relu"
  QString sourceFile;
  int sourceLine = 0;
  QString sourceText;
  int irLine = -1;            // 0-based line of the node in Revision::irText()
  int blockDepth = 0;         // > 0 inside an If/Loop body
};

// An edge between op nodes. `from == kNoNode` means graph input number `fromPort`;
// `to == kNoNode` means graph output number `toPort`.
struct ViewEdge {
  NodeId from = kNoNode;
  int fromPort = 0;
  NodeId to = kNoNode;
  int toPort = 0;
  QString type;
  QString value;  // the value's debug name
};

struct ViewGroup {
  int index = 0;
  int parent = -1;          // -1 for the root group
  // One group per module call: a module called twice (ResNet's `relu`) is two groups in call
  // order, named as torch.export numbers calls (`relu`, then `relu (2)` for its `relu@1`).
  QString name;             // "conv1" (the module attribute name), "relu (2)"; the root is ""
  QString path;             // "layer1.0.conv1", "layer1.0.relu (2)": unique, what tables show
  QString instancePath;     // the module itself, the same for each of its calls: "layer1.0.relu"
  int call = 1;             // which call of that module (1-based)
  QString typeName;         // "Conv2d"
  QVector<int> children;    // child group indices
  QVector<NodeId> nodes;    // op nodes directly in this group
  int totalNodes = 0;       // view nodes in this group and all below it
  int totalOps = 0;         // of those, the ones whose kind is not prim::
};

// A node a run executes, in graph order: a shown op, or a size computation drawn as an attribute,
// whose cost belongs to the shown op that reads it (`chargedTo`; kNoNode when none does).
struct ViewStep {
  NodeId id = kNoNode;
  QString kind;
  NodeId chargedTo = kNoNode;
};

struct GraphView {
  QVector<ViewNode> nodes;        // graph order
  QVector<ViewStep> steps;        // nodes plus the size computations they fold, graph order
  QVector<ViewEdge> edges;
  QVector<ViewGroup> groups;      // groups[0] is the whole model
  QVector<ViewPort> graphInputs;  // without `self`
  QVector<ViewPort> graphOutputs;
  SymbolRanges symbolRanges;      // the program's ranges for the symbols its types name
  QHash<NodeId, int> indexOf;     // NodeId -> index into nodes
  int jitNodes = 0;               // every node of the graph, folded ones included
  QHash<QString, int> histogram;  // non-prim:: nodes by kind, nested blocks included
  // Op nodes as torch.export counts a program's (top level only, without the aten::Bool that
  // Graft puts in front of each torch.cond): info's `ops` for a .pt2.
  int programOps = 0;

  const ViewNode* node(NodeId id) const {
    auto it = indexOf.constFind(id);
    return it == indexOf.constEnd() ? nullptr : &nodes[*it];
  }
  // Nodes whose kind is not prim::, nested If/Loop blocks included (as PyTorch counts them).
  int opCount() const;
  QHash<QString, int> opHistogram() const;

  // The graph's outputs are the items of the tuple it returns, when it returns one it builds at
  // the end (each result its own terminal, no TupleConstruct box).
  static GraphView build(const Revision& revision);
  // The same, with the document's input and output paths on the terminals.
  static GraphView build(const Revision& revision, const Document& document);
};

}  // namespace graft::core::model
