#include "ui/rewrite/python_highlighter.h"

namespace graft::ui {

namespace {

QTextCharFormat charFormat(const QColor& color, bool bold = false, bool italic = false) {
  QTextCharFormat f;
  f.setForeground(color);
  if (bold) f.setFontWeight(QFont::Bold);
  f.setFontItalic(italic);
  return f;
}

// Block states: inside a triple-quoted string opened on an earlier line.
enum State { Plain = 0, InTripleDouble = 1, InTripleSingle = 2 };

}  // namespace

PythonHighlighter::PythonHighlighter(QTextDocument* document) : QSyntaxHighlighter(document) {
  formats_.insert(QStringLiteral("keyword"), charFormat(QColor(0x1a, 0x4f, 0xb0), true));
  formats_.insert(QStringLiteral("builtin"), charFormat(QColor(0x00, 0x80, 0x80)));
  formats_.insert(QStringLiteral("number"), charFormat(QColor(0xa0, 0x50, 0x00)));
  formats_.insert(QStringLiteral("decorator"), charFormat(QColor(0x8a, 0x2b, 0x92)));
  formats_.insert(QStringLiteral("definition"), charFormat(QColor(0x8a, 0x2b, 0x92), true));
  formats_.insert(QStringLiteral("string"), charFormat(QColor(0x2e, 0x7d, 0x32)));
  formats_.insert(QStringLiteral("comment"), charFormat(QColor(0x80, 0x80, 0x80), false, true));
  const auto add = [this](const QString& pattern, const char* kind, int group = 0) {
    rules_.push_back(Rule{QRegularExpression(pattern), QLatin1String(kind), group});
  };
  add(QStringLiteral(
          R"(\b(and|as|assert|async|await|break|class|continue|def|del|elif|else|except|False|finally|for|)"
          R"(from|global|if|import|in|is|lambda|None|nonlocal|not|or|pass|raise|return|True|try|while|with|yield)\b)"),
      "keyword");
  add(QStringLiteral(R"(\b(self|torch|F|len|list|tuple|range|int|float|bool|str|isinstance|super)\b)"), "builtin");
  add(QStringLiteral(R"(\b(0[xX][0-9a-fA-F_]+|\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)\b)"), "number");
  add(QStringLiteral(R"(^\s*(@[\w.]+))"), "decorator", 1);
  add(QStringLiteral(R"(\b(?:def|class)\s+(\w+))"), "definition", 1);
}

void PythonHighlighter::highlightBlock(const QString& text) {
  for (const Rule& r : rules_)
    for (auto it = r.pattern.globalMatch(text); it.hasNext();) {
      const auto m = it.next();
      setFormat(int(m.capturedStart(r.group)), int(m.capturedLength(r.group)), formats_.value(r.kind));
    }
  // Strings and comments paint over the tokens inside them; scanned left to right so a '#' in a
  // string is not a comment and a quote in a comment opens nothing.
  const QTextCharFormat string = formats_.value(QStringLiteral("string"));
  setCurrentBlockState(Plain);
  int i = 0;
  const int n = int(text.size());
  const auto closeTriple = [&](int from, const QString& delim, int state) {
    const int end = int(text.indexOf(delim, from));
    if (end < 0) {
      setFormat(i, n - i, string);
      setCurrentBlockState(state);
      return n;
    }
    setFormat(i, end + 3 - i, string);
    return end + 3;
  };
  if (previousBlockState() == InTripleDouble) i = closeTriple(0, QStringLiteral("\"\"\""), InTripleDouble);
  else if (previousBlockState() == InTripleSingle) i = closeTriple(0, QStringLiteral("'''"), InTripleSingle);
  while (i < n) {
    const QChar c = text[i];
    if (c == QLatin1Char('#')) {
      setFormat(i, n - i, formats_.value(QStringLiteral("comment")));
      break;
    }
    if (c != QLatin1Char('"') && c != QLatin1Char('\'')) {
      ++i;
      continue;
    }
    const QString triple(3, c);
    if (text.mid(i, 3) == triple) {
      i = closeTriple(i + 3, triple, c == QLatin1Char('"') ? InTripleDouble : InTripleSingle);
      continue;
    }
    int j = i + 1;
    while (j < n && text[j] != c) j += text[j] == QLatin1Char('\\') ? 2 : 1;
    const int end = std::min(j + 1, n);
    setFormat(i, end - i, string);
    i = end;
  }
}

}  // namespace graft::ui
