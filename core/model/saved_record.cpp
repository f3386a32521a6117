#include "core/model/saved_record.h"

#include "core/model/document.h"
#include "core/model/revision.h"

#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

#include <unordered_map>

namespace graft::core::model {

namespace {
constexpr int kVersion = 1;

QJsonArray strings(const QStringList& list) { return QJsonArray::fromStringList(list); }
QStringList stringsOf(const QJsonValue& v) {
  QStringList out;
  for (const auto& s : v.toArray()) out << s.toString();
  return out;
}

// Op ordinal + 1 of each op node of a document's original revision.
std::unordered_map<NodeId, NodeId> ordinalIds(const Revision& original) {
  std::unordered_map<NodeId, NodeId> out;
  const auto ids = original.opNodeIds();
  for (size_t i = 0; i < ids.size(); ++i) out[ids[i]] = NodeId(i + 1);
  return out;
}

// The document's original revision expressed in its root: ordinals of itself, or what its saved
// record says.
Lineage rootOfOriginal(const Document& document) {
  Lineage out;
  const auto ids = document.original()->opNodeIds();
  const auto& record = document.savedRecord();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (record && i < record->nodes.size()) {
      Origin o{{}, record->nodes[i].altered};
      for (int f : record->nodes[i].from) o.from.push_back(NodeId(f + 1));
      out.set(ids[i], o);
    } else {
      out.set(ids[i], Origin{{NodeId(i + 1)}, false});
    }
  }
  return out;
}

// "sample:cnn" or "sha256:…": the root a chain of changes started from; empty when unknown.
QString rootKeyFor(const QString& sample, const QByteArray& sha256) {
  if (!sample.isEmpty()) return QStringLiteral("sample:") + sample;
  if (!sha256.isEmpty()) return QStringLiteral("sha256:") + QString::fromLatin1(sha256);
  return {};
}

// Where `revision`'s op nodes come from in the document's root, and the root's key.
struct RootedLineage {
  QString rootKey;  // empty: the document has no root to pair through
  bool frozen = true;
  Lineage lineage;
};
RootedLineage rootedLineage(const Document& document, const Revision& revision) {
  RootedLineage out;
  if (const auto& record = document.savedRecord()) {
    out.rootKey = record->rootKey();
    out.frozen = record->sourceFrozen;
  } else {
    out.rootKey = rootKeyFor(document.sampleName(), document.sourceSha256());
    out.frozen = document.original()->frozen();
  }
  out.lineage = revision.lineage().through(rootOfOriginal(document));
  return out;
}
}  // namespace

QString SavedRecord::rootKey() const { return rootKeyFor(sourceSample, sourceSha256); }

QByteArray SavedRecord::toJson() const {
  QJsonArray nodesJson;
  for (const SavedNode& n : nodes) {
    QJsonArray from;
    for (int f : n.from) from.append(f);
    QJsonObject o{{"op", n.op}, {"module_path", strings(n.place.modulePath)}, {"from", from}};
    if (!n.place.moduleTypes.isEmpty()) o.insert(QStringLiteral("module_types"), strings(n.place.moduleTypes));
    if (!n.place.moduleCalls.isEmpty()) {  // a module's second call or later: which call, by level
      QJsonArray calls;
      for (int call : n.place.moduleCalls) calls.append(call);
      o.insert(QStringLiteral("module_calls"), calls);
    }
    if (n.altered) o.insert(QStringLiteral("altered"), true);
    if (n.place.sourceLine > 0) {
      o.insert(QStringLiteral("file"), n.place.sourceFile);
      o.insert(QStringLiteral("line"), n.place.sourceLine);
    }
    nodesJson.append(o);
  }
  QJsonObject source{{"sha256", QString::fromLatin1(sourceSha256)}, {"sample", sourceSample}, {"name", sourceName},
                     {"frozen", sourceFrozen}};
  return QJsonDocument(QJsonObject{{"format", "graft-provenance"}, {"version", kVersion}, {"source", source},
                                   {"nodes", nodesJson}})
      .toJson(QJsonDocument::Compact);
}

std::optional<SavedRecord> SavedRecord::fromJson(const QByteArray& json, QString* error) {
  QJsonParseError pe;
  const auto doc = QJsonDocument::fromJson(json, &pe);
  const QJsonObject root = doc.object();
  if (!doc.isObject() || root.value(QLatin1String("format")).toString() != QLatin1String("graft-provenance")) {
    if (error) *error = QStringLiteral("not a Graft provenance record");
    return std::nullopt;
  }
  if (root.value(QLatin1String("version")).toInt() != kVersion) {
    if (error)
      *error = QStringLiteral("provenance record version %1 (this Graft reads %2)")
                   .arg(root.value(QLatin1String("version")).toInt())
                   .arg(kVersion);
    return std::nullopt;
  }
  SavedRecord r;
  const QJsonObject source = root.value(QLatin1String("source")).toObject();
  r.sourceSha256 = source.value(QLatin1String("sha256")).toString().toLatin1();
  r.sourceSample = source.value(QLatin1String("sample")).toString();
  r.sourceName = source.value(QLatin1String("name")).toString();
  r.sourceFrozen = source.value(QLatin1String("frozen")).toBool(true);
  for (const auto& v : root.value(QLatin1String("nodes")).toArray()) {
    const QJsonObject o = v.toObject();
    SavedNode n;
    n.op = o.value(QLatin1String("op")).toString();
    n.place.modulePath = stringsOf(o.value(QLatin1String("module_path")));
    n.place.moduleTypes = stringsOf(o.value(QLatin1String("module_types")));
    for (const auto& call : o.value(QLatin1String("module_calls")).toArray())
      n.place.moduleCalls << std::max(1, call.toInt(1));
    n.place.sourceFile = o.value(QLatin1String("file")).toString();
    n.place.sourceLine = o.value(QLatin1String("line")).toInt();
    for (const auto& f : o.value(QLatin1String("from")).toArray()) {
      const int ordinal = f.toInt(-1);
      if (ordinal < 0) {
        if (error) *error = QStringLiteral("a node's origin is not a node number");
        return std::nullopt;
      }
      n.from.push_back(ordinal);
    }
    n.altered = o.value(QLatin1String("altered")).toBool();
    r.nodes.push_back(std::move(n));
  }
  return r;
}

std::optional<SharedLineages> sharedRootLineages(const Document& a, const Revision& revA, const Document& b,
                                                 const Revision& revB) {
  RootedLineage la = rootedLineage(a, revA);
  RootedLineage lb = rootedLineage(b, revB);
  if (la.rootKey.isEmpty() || la.rootKey != lb.rootKey || la.frozen != lb.frozen) return std::nullopt;
  return SharedLineages{std::move(la.lineage), std::move(lb.lineage)};
}

SavedRecord recordFor(const Document& document, const Revision& revision) {
  SavedRecord r;
  const RootedLineage rooted = rootedLineage(document, revision);
  if (const auto& record = document.savedRecord()) {
    r.sourceSha256 = record->sourceSha256;
    r.sourceSample = record->sourceSample;
    r.sourceName = record->sourceName;
    r.sourceFrozen = record->sourceFrozen;
  } else {
    r.sourceSha256 = document.sourceSha256();
    r.sourceSample = document.sampleName();
    r.sourceName = document.displayName();
    r.sourceFrozen = document.original()->frozen();
  }
  for (NodeId id : revision.opNodeIds()) {
    SavedNode n;
    n.op = revision.kindOf(id);
    n.place = revision.placeOf(id);
    const Origin o = rooted.lineage.originOf(id);
    for (NodeId f : o.from) n.from.push_back(int(f) - 1);
    n.altered = o.altered;
    r.nodes.push_back(std::move(n));
  }
  return r;
}

}  // namespace graft::core::model
