#include "core/layout/dot_job.h"

#include <QtCore/QDataStream>
#include <QtCore/QIODevice>

namespace graft::core::layout {

namespace {
constexpr quint32 kJobTag = 0x47444a31;     // "GDJ1"
constexpr quint32 kResultTag = 0x47445231;  // "GDR1"
}  // namespace

QByteArray toBytes(const DotJob& job) {
  QByteArray bytes;
  QDataStream s(&bytes, QIODevice::WriteOnly);
  s << kJobTag << job.attributes << job.ranks << qint64(job.nodes.size());
  for (const auto& n : job.nodes) s << n.name << n.size << qint32(n.rank);
  s << job.edges << qint8(job.fault);
  return bytes;
}

bool dotJobFromBytes(const QByteArray& bytes, DotJob& job) {
  QDataStream s(bytes);
  quint32 tag = 0;
  qint64 nodes = 0;
  s >> tag;
  if (tag != kJobTag) return false;
  s >> job.attributes >> job.ranks >> nodes;
  if (s.status() != QDataStream::Ok || nodes < 0 || nodes > bytes.size()) return false;
  job.nodes.resize(nodes);
  for (auto& n : job.nodes) {
    qint32 rank = -1;
    s >> n.name >> n.size >> rank;
    if (rank < -1 || rank >= job.ranks.size()) return false;
    n.rank = rank;
  }
  qint8 fault = 0;
  s >> job.edges >> fault;
  job.fault = DotJob::Fault(fault);
  for (const auto& [t, h] : job.edges)
    if (t < 0 || h < 0 || t >= nodes || h >= nodes) return false;
  return s.status() == QDataStream::Ok;
}

QByteArray toBytes(const DotResult& r) {
  QByteArray bytes;
  QDataStream s(&bytes, QIODevice::WriteOnly);
  s << kResultTag << r.laidOut << r.error << r.workerMs << r.bounds << r.centres << qint64(r.splines.size());
  for (const auto& sp : r.splines) s << sp.points << sp.arrow << sp.arrowTip;
  return bytes;
}

bool dotResultFromBytes(const QByteArray& bytes, DotResult& r) {
  QDataStream s(bytes);
  quint32 tag = 0;
  qint64 splines = 0;
  s >> tag;
  if (tag != kResultTag) return false;
  s >> r.laidOut >> r.error >> r.workerMs >> r.bounds >> r.centres >> splines;
  if (s.status() != QDataStream::Ok || splines < 0 || splines > bytes.size()) return false;
  r.splines.resize(splines);
  for (auto& sp : r.splines) s >> sp.points >> sp.arrow >> sp.arrowTip;
  return s.status() == QDataStream::Ok;
}

}  // namespace graft::core::layout
