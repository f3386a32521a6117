#include "core/io/code_scan.h"

#include "core/model/effect_ops.h"

#include <caffe2/serialize/inline_container.h>

#include <QtCore/QHash>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>

#include <deque>

namespace graft::core::io {

namespace {

// One `def` of a code file: its class, its body's lines (those indented deeper than the def).
struct Definition {
  QString owner;  // "__torch__.m.M", or the file's module for a free function
  QString name;
  QString file;
  int line = 0;   // 1-based line of the def
  QStringList body;
};

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Nesting, operators per logical line and indentation, outside strings and comments.
QString checkDepth(const QString& file, const QByteArray& text) {
  int depth = 0, operators = 0, line = 1;
  bool lineStart = true;
  int indent = 0;
  const qsizetype n = text.size();
  for (qsizetype i = 0; i < n; ++i) {
    const char c = text[i];
    if (lineStart) {
      if (c == ' ' || c == '\t') {
        if (++indent > kMaxIndent)
          return QStringLiteral("%1 line %2: indented more than %3 columns").arg(file).arg(line).arg(kMaxIndent);
        continue;
      }
      lineStart = false;
    }
    if (c == '#') {
      while (i + 1 < n && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c == '"' || c == '\'') {
      const bool triple = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
      i += triple ? 3 : 1;
      for (; i < n; ++i) {
        if (text[i] == '\\') { ++i; continue; }
        if (text[i] == '\n') ++line;
        if (text[i] == c && (!triple || (i + 2 < n && text[i + 1] == c && text[i + 2] == c))) {
          if (triple) i += 2;
          break;
        }
        if (!triple && text[i] == '\n') break;
      }
      continue;
    }
    if (isWordChar(c)) {
      qsizetype end = i;
      while (end < n && isWordChar(text[end])) ++end;
      const QByteArray word = text.mid(i, end - i);
      if (word == "and" || word == "or" || word == "not" || word == "if" || word == "else" || word == "lambda")
        ++operators;
      i = end - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++operators;
      if (++depth > kMaxCodeNesting)
        return QStringLiteral("%1 line %2: brackets nested more than %3 deep").arg(file).arg(line).arg(kMaxCodeNesting);
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth > 0) --depth;
    } else if (std::strchr("+-*/%@&|^<>~.", c)) {
      ++operators;
    } else if (c == '\n') {
      ++line;
      if (depth == 0) {
        operators = 0;
        lineStart = true;
        indent = 0;
      }
    }
    if (operators > kMaxOperatorsPerLine)
      return QStringLiteral("%1 line %2: more than %3 operators, calls and subscripts in one statement")
          .arg(file).arg(line).arg(kMaxOperatorsPerLine);
  }
  return {};
}

int indentOf(const QString& line) {
  int i = 0;
  while (i < line.size() && (line[i] == QLatin1Char(' ') || line[i] == QLatin1Char('\t'))) ++i;
  return i;
}

// `code/__torch__/models/m.py` -> `__torch__.models.m`
QString moduleOf(const QString& file) {
  QString m = file;
  if (m.startsWith(QLatin1String("code/"))) m = m.mid(5);
  if (m.endsWith(QLatin1String(".py"))) m.chop(3);
  return m.replace(QLatin1Char('/'), QLatin1Char('.'));
}

std::vector<Definition> definitionsOf(const QString& file, const QByteArray& text) {
  static const QRegularExpression classLine(QStringLiteral(R"(^(\s*)class\s+(\w+))"));
  static const QRegularExpression defLine(QStringLiteral(R"(^(\s*)def\s+(\w+)\s*\()"));
  const QStringList lines = QString::fromUtf8(text).split(QLatin1Char('\n'));
  std::vector<std::pair<int, QString>> classes;  // indent, name: the classes open at this line
  std::vector<Definition> defs;
  for (qsizetype i = 0; i < lines.size(); ++i) {
    const QString& line = lines[i];
    if (line.trimmed().isEmpty()) continue;
    const int indent = indentOf(line);
    while (!classes.empty() && classes.back().first >= indent) classes.pop_back();
    if (auto m = classLine.match(line); m.hasMatch()) {
      classes.emplace_back(indent, m.captured(2));
      continue;
    }
    auto m = defLine.match(line);
    if (!m.hasMatch()) continue;
    Definition d;
    d.owner = moduleOf(file);
    for (const auto& c : classes) d.owner += QLatin1Char('.') + c.second;
    d.name = m.captured(2);
    d.file = file;
    d.line = int(i) + 1;
    for (qsizetype j = i + 1; j < lines.size() && (lines[j].trimmed().isEmpty() || indentOf(lines[j]) > indent); ++j)
      d.body << lines[j];
    defs.push_back(std::move(d));
  }
  return defs;
}

// Unqualified names of the ops that reach outside ("save", "from_file") with why, and their
// namespaces ("c10d"): what a code file's `.NAME(` and `ops.NAMESPACE.` would call.
struct EffectNames {
  QHash<QString, QString> ops;
  QHash<QString, QString> spaces;
};

const EffectNames& effectNames() {
  static const EffectNames names = [] {
    EffectNames out;
    for (const QString& op : model::outsideEffectOps()) {
      const QString why = model::outsideEffectOf(op);
      out.ops.insert(op.section(QStringLiteral("::"), 1), why);
      const QString space = op.section(QStringLiteral("::"), 0, 0);
      if (space != QLatin1String("aten") && space != QLatin1String("prim")) out.spaces.insert(space, why);
    }
    return out;
  }();
  return names;
}

// What one body does that must not run at load: a loop (a for or while statement, or a
// comprehension), or a call reaching outside. The body is searched as one text: inside brackets a
// call may span lines (`torch.` on one, `save(` on the next).
QString forbiddenIn(const Definition& d) {
  static const QRegularExpression loop(QStringLiteral(R"(\b(for|while)\b)"));
  static const QRegularExpression call(QStringLiteral(R"(\.\s*(\w+)\s*\()"));
  static const QRegularExpression space(QStringLiteral(R"(\bops\s*\.\s*(\w+)\s*\.)"));
  const QString body = d.body.join(QLatin1Char('\n'));
  const auto lineAt = [&](qsizetype offset) { return d.line + 1 + int(body.left(offset).count(QLatin1Char('\n'))); };
  if (auto m = loop.match(body); m.hasMatch())
    return QStringLiteral("loops (%1 line %2)").arg(d.file).arg(lineAt(m.capturedStart()));
  for (auto it = call.globalMatch(body); it.hasNext();) {
    const auto m = it.next();
    if (auto e = effectNames().ops.find(m.captured(1)); e != effectNames().ops.end())
      return QStringLiteral("calls %1, which %2 (%3 line %4)")
          .arg(m.captured(1), *e, d.file)
          .arg(lineAt(m.capturedStart()));
  }
  for (auto it = space.globalMatch(body); it.hasNext();) {
    const auto m = it.next();
    if (auto e = effectNames().spaces.find(m.captured(1)); e != effectNames().spaces.end())
      return QStringLiteral("calls ops.%1, which %2 (%3 line %4)")
          .arg(m.captured(1), *e, d.file)
          .arg(lineAt(m.capturedStart()));
  }
  return {};
}

// The load-time methods (`__setstate__`) that loop or reach outside, through every method or
// function they call by name.
QStringList loadTimeRefusals(const std::vector<Definition>& defs) {
  static const QRegularExpression called(QStringLiteral(R"((\w+)\s*\()"));
  QHash<QString, std::vector<const Definition*>> byName;
  for (const auto& d : defs) byName[d.name].push_back(&d);
  QStringList refusals;
  for (const auto& start : defs) {
    if (start.name != QLatin1String("__setstate__")) continue;
    QSet<const Definition*> seen{&start};
    std::deque<const Definition*> queue{&start};
    QString why;
    while (!queue.empty() && why.isEmpty()) {
      const Definition* d = queue.front();
      queue.pop_front();
      why = forbiddenIn(*d);
      if (!why.isEmpty() && d != &start) why = QStringLiteral("%1 (through %2.%3)").arg(why, d->owner, d->name);
      for (const QString& line : d->body)
        for (auto it = called.globalMatch(line); it.hasNext();)
          for (const Definition* next : byName.value(it.next().captured(1)))
            if (!seen.contains(next)) {
              seen.insert(next);
              queue.push_back(next);
            }
    }
    if (!why.isEmpty()) refusals << QStringLiteral("%1.__setstate__ %2").arg(start.owner, why);
  }
  return refusals;
}

bool isCodeRecord(const std::string& record) {
  return record.rfind("code/", 0) == 0 && record.size() > 3 && record.compare(record.size() - 3, 3, ".py") == 0;
}

}  // namespace

CodeScan scanCode(const QString& file, const QByteArray& text) {
  CodeScan scan;
  scan.tooDeep = checkDepth(file, text);
  if (scan.tooDeep.isEmpty()) scan.runsOnLoad = loadTimeRefusals(definitionsOf(file, text));
  return scan;
}

CodeScan scanArchiveCode(caffe2::serialize::PyTorchStreamReader& reader) {
  CodeScan scan;
  std::vector<Definition> defs;
  for (const std::string& record : reader.getAllRecords()) {
    if (!isCodeRecord(record)) continue;
    auto [data, size] = reader.getRecord(record);
    const QByteArray text(static_cast<const char*>(data.get()), qsizetype(size));
    const QString file = QString::fromStdString(record);
    scan.tooDeep = checkDepth(file, text);
    if (!scan.tooDeep.isEmpty()) return scan;
    auto more = definitionsOf(file, text);
    std::move(more.begin(), more.end(), std::back_inserter(defs));
  }
  scan.runsOnLoad = loadTimeRefusals(defs);
  return scan;
}

}  // namespace graft::core::io
