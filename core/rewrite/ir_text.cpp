#include "core/rewrite/ir_text.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <QtCore/QRegularExpression>

namespace graft::core::rewrite {

QString RuleError::toString() const {
  return QStringLiteral("%1:%2:%3: %4").arg(file).arg(line).arg(column).arg(message);
}

model::Diagnostic RuleError::diagnostic() const {
  auto d = model::Diagnostic::error(QStringLiteral("rewrite"), message);
  d.file = file;
  d.line = line;
  d.column = column;
  return d;
}

namespace {

// libtorch's parse errors read "message:\n<context lines>\n<the line>\n   ~~~ <--- HERE".
// The error's SourceRange is private, so find the highlighted line in our text: the candidate
// whose preceding lines agree longest with the printed context wins.
RuleError mapParseError(const QString& what, const QStringList& irLines, int firstLine) {
  RuleError err;
  QStringList lines = what.split(QLatin1Char('\n'));
  int marker = -1;
  for (int i = 0; i < lines.size(); ++i)
    if (lines[i].contains(QLatin1String("<--- HERE"))) { marker = i; break; }
  QString message = lines.value(0).trimmed().isEmpty() ? lines.value(1).trimmed() : lines.value(0).trimmed();
  if (message.endsWith(QLatin1String(" here:"))) message.chop(6);
  if (message.endsWith(QLatin1Char(':'))) message.chop(1);
  err.message = message;
  err.line = firstLine;
  err.column = 1;
  if (marker < 1) return err;
  const QString hl = lines[marker - 1];
  err.column = int(lines[marker].indexOf(QLatin1Char('~'))) + 1;
  if (err.column < 1) err.column = 1;
  int best = -1, bestScore = -1;
  for (int i = 0; i < irLines.size(); ++i) {
    if (irLines[i] != hl) continue;
    int score = 0;
    while (marker - 2 - score >= 0 && i - 1 - score >= 0 &&
           irLines[i - 1 - score] == lines[marker - 2 - score])
      ++score;
    if (score > bestScore) { best = i; bestScore = score; }
  }
  if (best >= 0) err.line = firstLine + best;
  return err;
}

}  // namespace

IrParse parseIrAt(const QString& ir, int firstLine, const QString& file) {
  IrParse out;
  const QStringList irLines = ir.split(QLatin1Char('\n'));
  auto graph = std::make_shared<torch::jit::Graph>();
  try {
    // Tensor constants (`value=<Tensor>`) parse as uninitialised tensors of the written type.
    torch::jit::parseIR(ir.toStdString(), graph.get(), /*parse_tensor_constants=*/true);
  } catch (const std::exception& e) {
    out.error = mapParseError(QString::fromUtf8(e.what()), irLines, firstLine);
    out.error.file = file;
    if (out.error.message.isEmpty()) out.error.message = QStringLiteral("invalid IR");
    return out;
  }
  // parseIR accepts any name::op; an unknown operator would only fail later, so say it here.
  for (auto* n : graph->nodes()) {
    const auto kind = n->kind();
    if (!kind.is_aten()) continue;
    if (!torch::jit::getAllOperatorsFor(kind).empty()) continue;
    const QString name = QString::fromStdString(kind.toQualString());
    out.error.file = file;
    out.error.message = QStringLiteral("unknown operator %1").arg(name);
    out.error.line = firstLine;
    out.error.column = 1;
    for (int i = 0; i < irLines.size(); ++i) {
      const int col = int(irLines[i].indexOf(name + QLatin1Char('(')));
      if (col >= 0) { out.error.line = firstLine + i; out.error.column = col + 1; break; }
    }
    return out;
  }
  out.graph = graph;
  return out;
}

}  // namespace graft::core::rewrite
