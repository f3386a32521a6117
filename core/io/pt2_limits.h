#pragma once
// Bounds on a torch.export program's definition, checked before anything is allocated for it, so
// a crafted model.json cannot exhaust the machine: Qt's JSON parser holds several times the text
// (a 468 MB model.json of 1,000,000 nodes took over 5 GB and aborted), and every node becomes a
// libtorch node. Both are generous for real programs: a decomposed 300-block GPT-2 is about
// 20,000 ops and its model.json under 100 MB.
#include <QtCore/QByteArrayView>
#include <QtCore/QString>

namespace graft::core::io::pt2 {

inline constexpr quint64 kMaxProgramJsonBytes = quint64(512) << 20;
inline constexpr qsizetype kMaxProgramNodes = 200000;

// Empty when a JSON record of `bytes` may be read, else why not.
QString checkJsonSize(const QString& record, quint64 bytes);

// An upper bound on the nodes a model.json defines, from its text alone: each node names its
// "target" key once, and the text of a string can never hold that key's unescaped quotes.
qsizetype countNodesIn(QByteArrayView json);

// Empty when `nodes` may be read, else why not.
QString checkNodeCount(qsizetype nodes);

// What to do about a refusal above.
QString limitHint();

}  // namespace graft::core::io::pt2
