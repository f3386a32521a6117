#include "core/tour/json_positions.h"

namespace graft::core::tour {

namespace {

// A minimal walk over valid JSON recording where every value starts.
struct Walker {
  const QByteArray& s;
  QHash<QString, qsizetype>& out;
  QHash<QString, qsizetype>& keys;
  qsizetype i = 0;

  bool more() const { return i < s.size(); }
  void skipSpace() {
    while (more() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  }
  QString string() {  // at the opening quote; returns the raw content (escapes kept)
    const qsizetype start = ++i;
    while (more() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
    const QString text = QString::fromUtf8(s.mid(start, i - start));
    ++i;
    return text;
  }
  void value(const QString& path) {
    skipSpace();
    if (!more()) return;
    const qsizetype start = i;
    const QString prefix = path.isEmpty() ? QString() : path + QLatin1Char('/');
    if (s[i] == '{') {
      ++i;
      for (skipSpace(); more() && s[i] != '}'; skipSpace()) {
        if (s[i] == ',') { ++i; continue; }
        if (s[i] != '"') return;
        const qsizetype keyStart = i;
        const QString key = string();
        keys.insert(prefix + key, keyStart);
        skipSpace();
        if (more() && s[i] == ':') ++i;
        const qsizetype before = i;
        value(prefix + key);
        if (i == before) return;  // not JSON after all: stop rather than loop
      }
      ++i;
    } else if (s[i] == '[') {
      ++i;
      int index = 0;
      for (skipSpace(); more() && s[i] != ']'; skipSpace()) {
        if (s[i] == ',') { ++i; continue; }
        const qsizetype before = i;
        value(prefix + QString::number(index++));
        if (i == before) return;
      }
      ++i;
    } else if (s[i] == '"') {
      string();
    } else {
      while (more() && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' && s[i] != '\r' &&
             s[i] != '\t')
        ++i;
    }
    if (i > start) out.insert(path, start);
  }
};

}  // namespace

JsonPositions::JsonPositions(const QByteArray& utf8) : text_(utf8) {
  Walker{text_, offsets_, keyOffsets_}.value(QString());
}

Position JsonPositions::at(const QString& path) const {
  for (QString p = path;; p = p.left(std::max<qsizetype>(0, p.lastIndexOf(QLatin1Char('/'))))) {
    if (auto it = offsets_.constFind(p); it != offsets_.constEnd()) return positionOf(*it);
    if (p.isEmpty()) return {1, 1};
  }
}

Position JsonPositions::keyAt(const QString& path) const {
  if (auto it = keyOffsets_.constFind(path); it != keyOffsets_.constEnd()) return positionOf(*it);
  return at(path);
}

Position JsonPositions::positionOf(qsizetype offset) const {
  offset = std::clamp<qsizetype>(offset, 0, text_.size());
  const QByteArray before = text_.left(offset);
  const qsizetype lineStart = before.lastIndexOf('\n') + 1;
  return {int(before.count('\n')) + 1, int(QString::fromUtf8(before.mid(lineStart)).size()) + 1};
}

}  // namespace graft::core::tour
