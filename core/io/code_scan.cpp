#include "core/io/code_scan.h"

#include "core/io/load_time_code.h"

#include <caffe2/serialize/inline_container.h>

namespace graft::core::io {

namespace {

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

bool isCodeRecord(const std::string& record) {
  return record.rfind("code/", 0) == 0 && record.size() > 3 && record.compare(record.size() - 3, 3, ".py") == 0;
}

}  // namespace

CodeScan scanCode(const QString& file, const QByteArray& text) {
  CodeScan scan;
  scan.tooDeep = checkDepth(file, text);
  return scan;
}

CodeScan scanArchiveCode(caffe2::serialize::PyTorchStreamReader& reader) {
  CodeScan scan;
  bool setstate = false;
  for (const std::string& record : reader.getAllRecords()) {
    if (!isCodeRecord(record)) continue;
    auto [data, size] = reader.getRecord(record);
    const QByteArray text(static_cast<const char*>(data.get()), qsizetype(size));
    const QString file = QString::fromStdString(record);
    scan.tooDeep = checkDepth(file, text);
    if (!scan.tooDeep.isEmpty()) return scan;
    setstate = setstate || text.contains("__setstate__");
  }
  // The lexer takes ASCII identifiers only, so a __setstate__ libtorch could call is spelled out
  // in some code file; without one, nothing runs at load and nothing needs compiling.
  if (!setstate) return scan;
  const LoadTimeCode code = checkLoadTimeCode(reader);
  scan.runsOnLoad = code.refusals;
  if (!code.uncheckable.isEmpty())
    scan.runsOnLoad << QStringLiteral("its load-time code could not be checked: %1").arg(code.uncheckable);
  return scan;
}

}  // namespace graft::core::io
