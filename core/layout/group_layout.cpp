#include "core/layout/group_layout.h"

#include <QtCore/QDataStream>
#include <QtCore/QIODevice>

namespace graft::core::layout {

QDataStream& operator<<(QDataStream& s, const DiagramTerminal& t) { return s << t.input << t.port << t.rect; }
QDataStream& operator>>(QDataStream& s, DiagramTerminal& t) { return s >> t.input >> t.port >> t.rect; }

QDataStream& operator<<(QDataStream& s, const DiagramEdge& e) {
  return s << e.edge << e.count << e.points << e.arrow << e.arrowTip << e.fromFrame << e.toFrame;
}
QDataStream& operator>>(QDataStream& s, DiagramEdge& e) {
  return s >> e.edge >> e.count >> e.points >> e.arrow >> e.arrowTip >> e.fromFrame >> e.toFrame;
}

QByteArray toBytes(const GroupLayout& g) {
  QByteArray bytes;
  QDataStream s(&bytes, QIODevice::WriteOnly);
  s << g.signature << g.size << qint64(g.nodes.size());
  for (const auto& [id, rect] : g.nodes) s << quint64(id) << rect;
  s << g.children << g.terminals << g.edges << g.endChildren << g.portsIn << g.portsOut << g.fallback;
  return bytes;
}

GroupLayout groupLayoutFromBytes(const QByteArray& bytes) {
  GroupLayout g;
  QDataStream s(bytes);
  qint64 nodes = 0;
  s >> g.signature >> g.size >> nodes;
  for (qint64 i = 0; i < nodes && s.status() == QDataStream::Ok; ++i) {
    quint64 id = 0;
    QRectF rect;
    s >> id >> rect;
    g.nodes.push_back({model::NodeId(id), rect});
  }
  s >> g.children >> g.terminals >> g.edges >> g.endChildren >> g.portsIn >> g.portsOut >> g.fallback;
  return g;
}

}  // namespace graft::core::layout
