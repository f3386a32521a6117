#pragma once
// Reading rule files: a few `key: value` header lines, then [sections] of IR text.
//
//   id: relu-to-clamp
//   title: ReLU as clamp_min
//   description: ...
//   [pattern]
//   graph(%x):
//     %r = aten::relu(%x)
//     return (%r)
//   [replacement]
//   ...
//   [condition]            one per line: `%v == LITERAL`, `%v dtype float32`, `%v rank 2`,
//   module ~ layer*        `module ~ GLOB` (every matched op's module path)
//   [test match] / [test no-match] / [test expect]   IR; expect follows the test it checks
//
// A built-in computed rule has `builtin: NAME` instead of pattern and replacement.
#include "core/rewrite/rule.h"

namespace graft::core::rewrite {

struct RuleParseResult {
  Rule rule;
  RuleError error;
  bool ok() const { return !error.isError(); }
};

// Parses and checks a rule: its header, sections, and that every IR section parses and names
// known operators. `file` is used in messages and stored as the rule's source.
RuleParseResult parseRule(const QString& text, const QString& file);
RuleParseResult parseRuleFile(const QString& path);

// The rule as rule-file text that parseRule reads back to the same rule (id, title, builtin,
// pattern, replacement, conditions; no description or self-tests): what a journal records so that
// replaying a rewrite does not depend on the rule library of the day.
QString ruleText(const Rule& rule);

}  // namespace graft::core::rewrite
