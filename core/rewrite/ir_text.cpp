#include "core/rewrite/ir_text.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <QtCore/QRegularExpression>

namespace graft::core::rewrite {

QString RuleError::toString() const {
  return QStringLiteral("%1:%2:%3: %4").arg(file).arg(line).arg(column).arg(message);
}

model::Diagnostic RuleError::diagnostic() const {
  auto d = model::Diagnostic::error(QStringLiteral("rewrite"), message, hint);
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

// Brackets and indented blocks nest at most this deep in rule IR (real patterns nest a few levels).
constexpr int kMaxIrNesting = 64;

RuleError nestingError(const QStringList& lines, int firstLine, const QString& file) {
  int depth = 0;
  std::vector<qsizetype> indents;  // the open indentation levels
  for (qsizetype l = 0; l < lines.size(); ++l) {
    const QString& line = lines[l];
    if (!line.trimmed().isEmpty()) {
      qsizetype indent = 0;
      while (indent < line.size() && line[indent].isSpace()) ++indent;
      while (!indents.empty() && indents.back() >= indent) indents.pop_back();
      indents.push_back(indent);
      if (indents.size() > size_t(kMaxIrNesting))
        return RuleError{file, firstLine + int(l), int(indent) + 1,
                         QStringLiteral("blocks nest more than %1 levels deep").arg(kMaxIrNesting)};
    }
    for (qsizetype c = 0; c < line.size(); ++c) {
      const QChar ch = line[c];
      if (ch == QLatin1Char('(') || ch == QLatin1Char('[') || ch == QLatin1Char('{')) {
        if (++depth > kMaxIrNesting)
          return RuleError{file, firstLine + int(l), int(c) + 1,
                           QStringLiteral("brackets nest more than %1 levels deep").arg(kMaxIrNesting)};
      } else if (ch == QLatin1Char(')') || ch == QLatin1Char(']') || ch == QLatin1Char('}')) {
        depth = std::max(0, depth - 1);
      }
    }
  }
  return {};
}

}  // namespace

IrParse parseIrAt(const QString& ir, int firstLine, const QString& file) {
  IrParse out;
  const QStringList irLines = ir.split(QLatin1Char('\n'));
  // libtorch's IR parser recurses once per bracket and per indented block: text nested thousands
  // deep would overflow the stack. One pass over the text refuses it first, whatever its length.
  if (RuleError deep = nestingError(irLines, firstLine, file); deep.isError()) {
    out.error = deep;
    return out;
  }
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
  // parseIR accepts any name::op with any number of arguments; an unknown operator, or one given
  // a number of arguments none of its overloads takes, would only fail later (libtorch's
  // "INTERNAL ASSERT FAILED"), so say it here.
  for (auto* n : graph->nodes()) {
    const auto kind = n->kind();
    if (!kind.is_aten()) continue;
    const auto operators = torch::jit::getAllOperatorsFor(kind);
    QString problem;
    if (operators.empty()) {
      problem = QStringLiteral("unknown operator %1").arg(QString::fromStdString(kind.toQualString()));
    } else {
      const size_t given = n->inputs().size(), results = n->outputs().size();
      bool fits = false;
      QStringList takes;
      for (const auto& op : operators) {
        const auto& schema = op->schema();
        size_t required = 0;
        for (const auto& a : schema.arguments())
          if (!a.default_value() && !a.kwarg_only()) ++required;
        const size_t most = schema.arguments().size();
        fits = fits || (given >= required && (given <= most || schema.is_vararg()) &&
                        (results == schema.returns().size() || schema.is_varret()));
        takes << (required == most ? QString::number(most) : QStringLiteral("%1 to %2").arg(required).arg(most));
      }
      takes.removeDuplicates();
      if (!fits)
        problem = QStringLiteral("%1 is given %2 argument(s) and %3 result(s); its overloads take %4 argument(s)")
                      .arg(QString::fromStdString(kind.toQualString())).arg(given).arg(results)
                      .arg(takes.join(QStringLiteral(", ")));
    }
    if (problem.isEmpty()) continue;
    const QString name = QString::fromStdString(kind.toQualString());
    out.error.file = file;
    out.error.message = problem;
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
