#pragma once
// Parsing IR text from a rule file with errors mapped back to the file's lines and columns.
#include "core/rewrite/rule.h"

#include <memory>

namespace torch::jit { struct Graph; }

namespace graft::core::rewrite {

struct IrParse {
  std::shared_ptr<torch::jit::Graph> graph;
  RuleError error;  // line/column relative to the file when firstLine is the IR's first line
};

// Parses `ir` (which starts at line `firstLine` of `file`) and checks every aten:: operator exists.
IrParse parseIrAt(const QString& ir, int firstLine, const QString& file);

}  // namespace graft::core::rewrite
