#pragma once
// What a file saved by Graft records beside its graph, so that opening it later still knows each
// op node's place (module path, source line) and which nodes of the file it was made from it
// derives from. A TorchScript archive holds it as the extra file `graft/provenance.json`, a
// torch.export archive as the record `extra/graft_provenance.json`. No libtorch types here.
#include "core/model/node_place.h"
#include "core/model/provenance.h"

#include <QtCore/QByteArray>
#include <QtCore/QString>
#include <optional>
#include <vector>

namespace graft::core::model {

class Document;
class Revision;

struct SavedNode {
  QString op;             // "aten::conv2d": checked against the graph the file loads as
  NodePlace place;
  std::vector<int> from;  // op nodes of the source file (0-based, graph order) it derives from
  bool altered = false;
};

struct SavedRecord {
  // The source: the file (or built-in sample) the chain of changes started from.
  QByteArray sourceSha256;  // empty for a sample
  QString sourceSample;
  QString sourceName;       // "resnet18.pt", for messages
  bool sourceFrozen = true;
  std::vector<SavedNode> nodes;  // one per op node of the saved graph, in graph order

  // The root every comparison between files pairs through: "sha256:…" or "sample:cnn".
  QString rootKey() const;
  QByteArray toJson() const;
  static std::optional<SavedRecord> fromJson(const QByteArray& json, QString* error);
};

// The record to save with `revision` of `document`: its places, and its lineage carried through
// the document's own record when the document was itself opened from a file Graft saved.
SavedRecord recordFor(const Document& document, const Revision& revision);

// Both revisions' lineages in one root, when their documents trace back to the same one (the same
// file or sample, or a file Graft saved from it), root nodes named by their op ordinal + 1;
// nullopt when they do not, and nodes can only pair by structure. Compare and diff both ask here.
struct SharedLineages {
  Lineage a, b;
};
std::optional<SharedLineages> sharedRootLineages(const Document& a, const Revision& revA, const Document& b,
                                                 const Revision& revB);

}  // namespace graft::core::model
