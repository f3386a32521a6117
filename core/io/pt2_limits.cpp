#include "core/io/pt2_limits.h"

#include <QtCore/QLocale>

namespace graft::core::io::pt2 {

namespace {
QString count(quint64 n) { return QLocale(QLocale::English).toString(n); }
}  // namespace

QString checkJsonSize(const QString& record, quint64 bytes) {
  if (bytes <= kMaxProgramJsonBytes) return {};
  return QStringLiteral("%1 holds %2 bytes of JSON, over the %3 MiB Graft reads")
      .arg(record, count(bytes))
      .arg(kMaxProgramJsonBytes >> 20);
}

qsizetype countNodesIn(QByteArrayView json) {
  static constexpr QByteArrayView key("\"target\"");
  qsizetype nodes = 0;
  for (qsizetype at = json.indexOf(key); at >= 0; at = json.indexOf(key, at + key.size())) ++nodes;
  return nodes;
}

QString checkNodeCount(qsizetype nodes) {
  if (nodes <= kMaxProgramNodes) return {};
  return QStringLiteral("its program defines %1 nodes, over the %2 Graft reads")
      .arg(count(quint64(nodes)), count(quint64(kMaxProgramNodes)));
}

QString limitHint() {
  return QStringLiteral(
      "A real model stays well below these limits (a 300-block GPT-2 has about 20,000 nodes). If this file is "
      "yours, export a smaller part of the model (one block, or fewer layers), or load it with "
      "torch.export.load in PyTorch.");
}

}  // namespace graft::core::io::pt2
