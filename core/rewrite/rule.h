#pragma once
// A rewrite rule as its file describes it: plain data, no libtorch types.
#include "core/model/diagnostic.h"

#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVector>

namespace graft::core::rewrite {

// A match condition from a rule's [condition] section.
struct Condition {
  enum class Kind { ConstEquals, NotEquals, DType, Rank, ModuleGlob };
  Kind kind = Kind::ConstEquals;
  QString value;      // "%alpha" for value conditions (without %), empty for ModuleGlob
  QString expected;   // the literal, dtype name, rank or glob
  int line = 0;       // where it was written (1-based), for messages
  QString text;       // the condition as written
};

// A self-test: `ir` must (or must not) match; `expect`, when given, is the IR after rewriting.
struct RuleTest {
  bool shouldMatch = true;
  QString ir;
  int line = 0;       // first line of the IR in the rule file
  QString expect;
  int expectLine = 0;
};

struct Rule {
  QString id, title, description;
  // Either a pattern rule (pattern + replacement, applied by SubgraphRewriter) or a computed
  // rewrite whose code lives in Graft, named by `computed` (a rule file's `builtin:` key, e.g.
  // "fold-conv-bn"). Whether a rule is shipped with Graft is `source` ("builtin"), not this.
  QString pattern, replacement, computed;
  int patternLine = 0, replacementLine = 0;
  // More [pattern] sections: other forms of the same computation (aten::feature_dropout beside
  // aten::dropout) that the one replacement stands in for, with the same inputs.
  QStringList alternatives;
  QVector<Condition> conditions;
  QVector<RuleTest> tests;
  QString source;  // "builtin" for shipped rules, else the rule file's path

  bool isComputed() const { return !computed.isEmpty(); }
};

// A problem in a rule file, at a 1-based line and column.
struct RuleError {
  QString file;
  int line = 0, column = 0;
  QString message;
  QString hint;  // what to do about it (may be empty)
  bool isError() const { return !message.isEmpty(); }
  QString toString() const;  // "file:line:column: message"
  model::Diagnostic diagnostic() const;  // a "rewrite" error at file:line:column
};

}  // namespace graft::core::rewrite
