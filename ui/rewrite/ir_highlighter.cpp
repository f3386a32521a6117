#include "ui/rewrite/ir_highlighter.h"

namespace graft::ui {

namespace {
QTextCharFormat format(const QColor& color, bool bold = false) {
  QTextCharFormat f;
  f.setForeground(color);
  if (bold) f.setFontWeight(QFont::Bold);
  return f;
}
}  // namespace

IrHighlighter::IrHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  // Later rules paint over earlier ones.
  rules_ = {
      {QRegularExpression(QStringLiteral(R"(\b(Tensor|Float|Double|Long|Int|Bool|int|float|bool|str|NoneType)\b(\[\])?)")),
       format(QColor(0x00, 0x80, 0x80))},
      {QRegularExpression(QStringLiteral(R"(\b\w+::\w+)")), format(QColor(0x1a, 0x4f, 0xb0), true)},
      {QRegularExpression(QStringLiteral(R"(%[\w.]+)")), format(QColor(0x8a, 0x2b, 0x92))},
      {QRegularExpression(QStringLiteral(R"(\b(graph|return)\b)")), format(QColor(0x20, 0x20, 0x20), true)},
      {QRegularExpression(QStringLiteral(R"("[^"]*")")), format(QColor(0xa3, 0x4a, 0x00))},
      {QRegularExpression(QStringLiteral(R"(^\[[a-z -]+\].*$)")), format(QColor(0x2e, 0x7d, 0x32), true)},
      {QRegularExpression(QStringLiteral(R"(#.*$)")), format(QColor(0x80, 0x80, 0x80))},
  };
}

void IrHighlighter::highlightBlock(const QString& text) {
  for (const Rule& r : rules_) {
    auto it = r.pattern.globalMatch(text);
    while (it.hasNext()) {
      const auto m = it.next();
      setFormat(int(m.capturedStart()), int(m.capturedLength()), r.format);
    }
  }
}

}  // namespace graft::ui
