#include "core/rewrite/rule_parser.h"

#include "core/io/file_policy.h"
#include "core/rewrite/ir_text.h"

#include <torch/csrc/jit/ir/ir.h>
#include <torch/csrc/jit/runtime/operator.h>

#include <unordered_set>

#include <QtCore/QFile>
#include <QtCore/QRegularExpression>

namespace graft::core::rewrite {

namespace {

struct Section {
  QString name;   // "pattern", "test match", ...
  int headerLine = 0;
  int firstLine = 0;  // line of the first content line
  QStringList lines;
};

RuleError errorAt(const QString& file, int line, int column, const QString& message) {
  return RuleError{file, line, column, message};
}

// Drops trailing blank lines so a section ends where its text does.
QString sectionText(const Section& s) {
  QStringList lines = s.lines;
  while (!lines.isEmpty() && lines.last().trimmed().isEmpty()) lines.removeLast();
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

// Why `glob` is not a valid wildcard pattern (`*`, `?`, `[set]`), empty when it is.
QString globError(const QString& glob) {
  for (qsizetype i = 0; i < glob.size(); ++i) {
    if (glob[i] != QLatin1Char('[')) continue;
    // A set: `[!` or `[]` may start it; it ends at the next `]` after its first character.
    qsizetype j = i + 1;
    if (j < glob.size() && (glob[j] == QLatin1Char('!') || glob[j] == QLatin1Char('^'))) ++j;
    if (j < glob.size() && glob[j] == QLatin1Char(']')) ++j;
    while (j < glob.size() && glob[j] != QLatin1Char(']')) ++j;
    if (j >= glob.size()) return QStringLiteral("the [ at column %1 is never closed by ]").arg(i + 1);
    i = j;
  }
  const QRegularExpression re(QRegularExpression::wildcardToRegularExpression(glob));
  if (!re.isValid()) return re.errorString();
  return {};
}

bool parseCondition(const QString& raw, int line, const QString& file, Condition& c, RuleError& err) {
  const QString text = raw.trimmed();
  c.line = line;
  c.text = text;
  static const QRegularExpression module(QStringLiteral(R"(^module\s*~\s*(\S+)$)"));
  static const QRegularExpression equals(QStringLiteral(R"(^%([\w.]+)\s*(==|!=)\s*(.+)$)"));
  static const QRegularExpression dtype(QStringLiteral(R"(^%([\w.]+)\s+dtype\s+(\w+)$)"));
  static const QRegularExpression rank(QStringLiteral(R"(^%([\w.]+)\s+rank\s+(\d+)$)"));
  if (auto m = module.match(text); m.hasMatch()) {
    c.kind = Condition::Kind::ModuleGlob;
    c.expected = m.captured(1);
    // A glob that does not parse (`module ~ [`: a bracket never closed) is an error here, not a
    // pattern that silently matches nothing.
    if (QString why = globError(c.expected); !why.isEmpty()) {
      err = errorAt(file, line, int(raw.indexOf(c.expected)) + 1,
                    QStringLiteral("condition '%1': the glob %2 is not valid: %3").arg(text, c.expected, why));
      return false;
    }
  } else if (auto m = equals.match(text); m.hasMatch()) {
    c.kind = m.captured(2) == QLatin1String("==") ? Condition::Kind::ConstEquals : Condition::Kind::NotEquals;
    c.value = m.captured(1);
    c.expected = m.captured(3).trimmed();
  } else if (auto m = dtype.match(text); m.hasMatch()) {
    c.kind = Condition::Kind::DType;
    c.value = m.captured(1);
    c.expected = m.captured(2);
  } else if (auto m = rank.match(text); m.hasMatch()) {
    c.kind = Condition::Kind::Rank;
    c.value = m.captured(1);
    c.expected = m.captured(2);
  } else {
    const int col = int(raw.indexOf(text)) + 1;
    err = errorAt(file, line, col,
                  QStringLiteral("unknown condition '%1' (expected `%v == LITERAL`, `%v != LITERAL`, `%v dtype NAME`, "
                                 "`%v rank N` or `module ~ GLOB`)").arg(text));
    return false;
  }
  return true;
}

// The prim:: nodes libtorch's interpreter runs itself (interpreter/code_impl.h), which have no
// registered operator of their own.
bool runByTheInterpreter(c10::Symbol kind) {
  static const std::unordered_set<c10::Symbol> kinds = {
      c10::prim::Constant, c10::prim::If, c10::prim::Loop, c10::prim::GetAttr, c10::prim::SetAttr,
      c10::prim::CallFunction, c10::prim::CallMethod, c10::prim::CreateObject, c10::prim::DictConstruct,
      c10::prim::ListConstruct, c10::prim::ListUnpack, c10::prim::TupleConstruct, c10::prim::TupleIndex,
      c10::prim::TupleSlice, c10::prim::TupleUnpack, c10::prim::Uninitialized, c10::prim::RaiseException,
      c10::prim::Enter, c10::prim::Exit, c10::prim::NumToTensor, c10::prim::isinstance, c10::prim::device,
      c10::prim::dtype, c10::prim::tolist, c10::prim::Return, c10::prim::Param};
  return kinds.count(kind) > 0;
}

// The first node of a replacement, nested blocks included, whose operator libtorch does not have
// (parseIR takes any name::op): inserted into a model it would fail only when run or saved
// ("Schema not found for node"). Null when every node has one.
const torch::jit::Node* unknownOperator(const torch::jit::Block* block) {
  for (const auto* n : block->nodes()) {
    if (!runByTheInterpreter(n->kind()) && torch::jit::getAllOperatorsFor(n->kind()).empty()) return n;
    for (const auto* sub : n->blocks())
      if (const auto* found = unknownOperator(sub)) return found;
  }
  return nullptr;
}

}  // namespace

RuleParseResult parseRule(const QString& text, const QString& file) {
  std::shared_ptr<torch::jit::Graph> patternGraph, replacementGraph;
  RuleParseResult result;
  Rule& rule = result.rule;
  rule.source = file;
  const QStringList lines = text.split(QLatin1Char('\n'));
  QVector<Section> sections;
  QStringList description;  // joined once at the end: appending line by line is quadratic
  static const QRegularExpression header(QStringLiteral(R"(^\[([a-z -]+)\]\s*(.*)$)"));
  static const QRegularExpression keyValue(QStringLiteral(R"(^([a-z]+)\s*:\s*(.*)$)"));
  for (int i = 0; i < lines.size(); ++i) {
    const int lineNo = i + 1;
    QString line = lines[i];
    if (line.endsWith(QLatin1Char('\r'))) line.chop(1);
    if (auto m = header.match(line); m.hasMatch()) {
      Section s{m.captured(1).simplified(), lineNo, lineNo + 1, {}};
      static const QStringList known{QStringLiteral("pattern"), QStringLiteral("replacement"),
                                     QStringLiteral("condition"), QStringLiteral("test match"),
                                     QStringLiteral("test no-match"), QStringLiteral("test expect")};
      if (!known.contains(s.name)) {
        result.error = errorAt(file, lineNo, 2, QStringLiteral("unknown section [%1] (known: %2)")
                                                    .arg(s.name, known.join(QStringLiteral(", "))));
        return result;
      }
      // `[condition] module ~ layer*` puts the first entry on the header line.
      if (!m.captured(2).trimmed().isEmpty()) {
        s.firstLine = lineNo;
        s.lines << m.captured(2);
      }
      sections.push_back(s);
      continue;
    }
    if (!sections.isEmpty()) {
      sections.last().lines << line;
      continue;
    }
    const QString trimmed = line.trimmed();
    if (trimmed.isEmpty() || trimmed.startsWith(QLatin1Char('#'))) continue;
    auto m = keyValue.match(trimmed);
    if (!m.hasMatch()) {
      result.error = errorAt(file, lineNo, int(line.indexOf(trimmed)) + 1,
                             QStringLiteral("expected `key: value` or a [section]"));
      return result;
    }
    const QString key = m.captured(1), value = m.captured(2).trimmed();
    if (key == QLatin1String("id")) rule.id = value;
    else if (key == QLatin1String("title")) rule.title = value;
    else if (key == QLatin1String("description"))
      description << value;
    else if (key == QLatin1String("builtin")) rule.computed = value;
    else {
      result.error = errorAt(file, lineNo, int(line.indexOf(key)) + 1,
                             QStringLiteral("unknown key '%1' (known: id, title, description, builtin)").arg(key));
      return result;
    }
  }
  rule.description = description.join(QLatin1Char(' '));
  if (rule.id.isEmpty()) {
    result.error = errorAt(file, 1, 1, QStringLiteral("missing `id:`"));
    return result;
  }
  static const QRegularExpression idChars(QStringLiteral(R"(^[A-Za-z0-9_.-]+$)"));
  if (!idChars.match(rule.id).hasMatch()) {
    result.error =
        errorAt(file, 1, 1, QStringLiteral("id '%1' may hold only letters, digits, '.', '_' and '-'").arg(rule.id));
    return result;
  }
  if (rule.title.isEmpty()) rule.title = rule.id;

  for (const Section& s : sections) {
    if (s.name == QLatin1String("condition")) {
      for (int k = 0; k < s.lines.size(); ++k) {
        const QString t = s.lines[k].trimmed();
        if (t.isEmpty() || t.startsWith(QLatin1Char('#'))) continue;
        Condition c;
        if (!parseCondition(s.lines[k], s.firstLine + k, file, c, result.error)) return result;
        rule.conditions.push_back(c);
      }
      continue;
    }
    const QString ir = sectionText(s);
    if (ir.trimmed().isEmpty()) {
      result.error = errorAt(file, s.headerLine, 1, QStringLiteral("section [%1] is empty").arg(s.name));
      return result;
    }
    const IrParse parsed = parseIrAt(ir, s.firstLine, file);
    if (parsed.error.isError()) {
      result.error = parsed.error;
      return result;
    }
    if (s.name == QLatin1String("pattern") && !rule.pattern.isEmpty()) {
      if (parsed.graph->inputs().size() != patternGraph->inputs().size() ||
          parsed.graph->outputs().size() != patternGraph->outputs().size()) {
        result.error =
            errorAt(file, s.firstLine, 1,
                    QStringLiteral("this [pattern] takes %1 input(s) and returns %2 value(s), but the first takes %3 "
                                   "and returns %4: every form must fit the one replacement")
                        .arg(parsed.graph->inputs().size())
                        .arg(parsed.graph->outputs().size())
                        .arg(patternGraph->inputs().size())
                        .arg(patternGraph->outputs().size()));
        return result;
      }
      rule.alternatives << ir;
    } else if (s.name == QLatin1String("pattern")) {
      rule.pattern = ir;
      rule.patternLine = s.firstLine;
      patternGraph = parsed.graph;
    } else if (s.name == QLatin1String("replacement")) {
      rule.replacement = ir;
      rule.replacementLine = s.firstLine;
      replacementGraph = parsed.graph;
    } else if (s.name == QLatin1String("test expect")) {
      if (rule.tests.isEmpty() || !rule.tests.last().shouldMatch || !rule.tests.last().expect.isEmpty()) {
        result.error = errorAt(file, s.headerLine, 1, QStringLiteral("[test expect] must follow a [test match]"));
        return result;
      }
      rule.tests.last().expect = ir;
      rule.tests.last().expectLine = s.firstLine;
    } else {
      RuleTest t;
      t.shouldMatch = s.name == QLatin1String("test match");
      t.ir = ir;
      t.line = s.firstLine;
      rule.tests.push_back(t);
    }
  }
  // The replacement stands in for the pattern: it takes the same inputs and gives as many
  // outputs (libtorch's rewriter asserts otherwise, as an internal error).
  if (patternGraph && replacementGraph) {
    const size_t pin = patternGraph->inputs().size(), rin = replacementGraph->inputs().size();
    const size_t pout = patternGraph->outputs().size(), rout = replacementGraph->outputs().size();
    if (pin != rin || pout != rout) {
      result.error =
          errorAt(file, rule.replacementLine, 1,
                  QStringLiteral("the replacement takes %1 input(s) and returns %2 value(s), but the pattern takes %3 "
                                 "and returns %4: a replacement must match its pattern's inputs and outputs")
                      .arg(rin)
                      .arg(rout)
                      .arg(pin)
                      .arg(pout));
      return result;
    }
  }
  // Refused here, so `rewrite --dry-run` and the rule editor say it too.
  if (replacementGraph) {
    if (const auto* n = unknownOperator(replacementGraph->block())) {
      const QString name = QString::fromStdString(n->kind().toQualString());
      int line = rule.replacementLine, column = 1;
      const QStringList irLines = rule.replacement.split(QLatin1Char('\n'));
      for (int i = 0; i < irLines.size(); ++i)
        if (const int col = int(irLines[i].indexOf(name + QLatin1Char('('))); col >= 0) {
          line = rule.replacementLine + i;
          column = col + 1;
          break;
        }
      result.error =
          errorAt(file, line, column,
                  QStringLiteral("the replacement uses %1, which is not an operator libtorch has").arg(name));
      return result;
    }
  }
  if (rule.isComputed()) {
    if (!rule.pattern.isEmpty() || !rule.replacement.isEmpty()) {
      result.error = errorAt(file, rule.patternLine ? rule.patternLine - 1 : 1, 1,
                             QStringLiteral("a `builtin:` rule has no [pattern] or [replacement]"));
      return result;
    }
    for (const Condition& c : rule.conditions)
      if (c.kind != Condition::Kind::ModuleGlob) {
        result.error = errorAt(
            file, 1, 1,
            QStringLiteral(
                "condition `%1`: a `builtin:` rule has no pattern values; it takes only `module ~ GLOB` conditions")
                .arg(c.text));
        return result;
      }
  } else if (rule.pattern.isEmpty() || rule.replacement.isEmpty()) {
    result.error = errorAt(file, lines.size(), 1,
                           rule.pattern.isEmpty() ? QStringLiteral("missing [pattern] section")
                                                  : QStringLiteral("missing [replacement] section"));
    return result;
  }
  return result;
}

QString ruleText(const Rule& rule) {
  QString text = QStringLiteral("id: %1\ntitle: %2\n").arg(rule.id, rule.title.simplified());
  auto section = [&](const char* name, const QString& body) {
    text += QStringLiteral("[%1]\n").arg(QLatin1String(name)) + body;
    if (!body.endsWith(QLatin1Char('\n'))) text += QLatin1Char('\n');
  };
  if (rule.isComputed()) {
    text += QStringLiteral("builtin: %1\n").arg(rule.computed);
  } else {
    section("pattern", rule.pattern);
    for (const QString& alternative : rule.alternatives) section("pattern", alternative);
    section("replacement", rule.replacement);
  }
  if (!rule.conditions.isEmpty()) {
    QStringList lines;
    for (const auto& c : rule.conditions) lines << c.text;
    section("condition", lines.join(QLatin1Char('\n')));
  }
  return text;
}

RuleParseResult parseRuleFile(const QString& path) {
  if (path.startsWith(QLatin1String(":/"))) {  // a built-in rule (Qt resource)
    QFile f(path);
    if (f.open(QIODevice::ReadOnly)) return parseRule(QString::fromUtf8(f.readAll()), path);
  }
  // The input policy: a regular file of at most 256 MiB, never a device, a pipe or a /proc file.
  QString why;
  const auto bytes = io::readInputFile(path, io::kMaxTextFileBytes, QStringLiteral("rule file"), &why);
  if (!bytes) {
    RuleParseResult r;
    r.error = RuleError{path, 0, 0, QStringLiteral("cannot read rule file: %1").arg(why)};
    return r;
  }
  return parseRule(QString::fromUtf8(*bytes), path);
}

}  // namespace graft::core::rewrite
