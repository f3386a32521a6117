#include "ui/rewrite/ir_highlighter.h"

namespace graft::ui {

namespace {
QTextCharFormat charFormat(const QColor& color, bool bold = false) {
  QTextCharFormat f;
  f.setForeground(color);
  if (bold) f.setFontWeight(QFont::Bold);
  return f;
}
}  // namespace

IrHighlighter::IrHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  // Later rules paint over earlier ones.
  auto add = [this](const char* pattern, const QTextCharFormat& f) {
    rules_.push_back(Rule{QRegularExpression(QString::fromLatin1(pattern)), f});
  };
  add(R"(\b(Tensor|Float|Double|Long|Int|Bool|int|float|bool|str|NoneType)\b(\[\])?)",
      charFormat(QColor(0x00, 0x80, 0x80)));
  add(R"(\b\w+::\w+)", charFormat(QColor(0x1a, 0x4f, 0xb0), true));
  add(R"(%[\w.]+)", charFormat(QColor(0x8a, 0x2b, 0x92)));
  add(R"(\b(graph|return)\b)", charFormat(QColor(0x20, 0x20, 0x20), true));
  add(R"("[^"]*")", charFormat(QColor(0xa3, 0x4a, 0x00)));
  add(R"(^\[[a-z -]+\].*$)", charFormat(QColor(0x2e, 0x7d, 0x32), true));
  add(R"(#.*$)", charFormat(QColor(0x80, 0x80, 0x80)));
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
