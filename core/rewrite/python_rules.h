#pragma once
// Rules written as Python (python/graft/rules.py): a `.py` rule file the user chose defines
// `pattern` and `replacement` functions, or `RULES = [Rule(...)]`. Graft runs the file in its
// Python worker (python_worker.h: one warm Python per process, a process group per job, a time
// limit; never in its own process, never from a model file), which
// turns each function into ATen graphs twice: TorchScript (torch.jit.trace for patterns, as traced
// models hold them; torch.jit.script for replacements where it scripts, so shape computations stay
// rank-generic, else trace) and torch.export (read back through Graft's own .pt2 import). Each form
// becomes an ordinary text rule (rule_parser), so matching, skip reasons, provenance, journaling,
// undo and saves are those of text rules. A model gets the form of its format.
#include "core/rewrite/rule.h"

#include <QtCore/QJsonObject>

#include <atomic>
#include <QtCore/QStringList>

namespace graft::core::model { class Document; class Revision; }

namespace graft::core::rewrite {

struct PythonRuleSet {
  QString file;
  QVector<Rule> torchscript;  // for TorchScript models (.pt, samples)
  QVector<Rule> pt2;          // for torch.export programs (.pt2)
  RuleError error;            // file:line: message when the file gave no rules
  bool ok() const { return !error.isError(); }
  // The rules for a document of `format` ("torchscript" or "pt2").
  const QVector<Rule>& forFormat(const QString& format) const {
    return format == QLatin1String("pt2") ? pt2 : torchscript;
  }
};

// `spec` names a Python rule file (ends in .py).
bool isPythonRuleFile(const QString& spec);

// The Python that runs rule and module files: $GRAFT_PYTHON, else the Python the installed
// launcher found torch through ($GRAFT_TORCH_PYTHON), else the interpreter of the environment
// whose torch wheel Graft's libtorch comes from (<env>/lib/pythonX.Y/site-packages/torch/lib →
// <env>/bin/pythonX.Y, python3 or python; pythonX.Y on PATH for a user install), else python3.
// Candidates are checked to exist, not run.
QString pythonInterpreter();

// Seconds a rule file may run: $GRAFT_PYTHON_TIMEOUT, else 120.
int pythonTimeoutSeconds();

// Runs `path` in the Python worker and returns its rules in both forms; never throws, never hangs
// past the timeout (an endless loop is reported with the line it was on).
// A shipped file (":/rules/python/…") runs from a copy. `siteRanks` (siteRanks() of the model the
// rules are for) gives an argument without a rank annotation the rank of the model's tensors that
// feed the op it is passed to.
// `cancel`, when it turns true, stops the child at once (the result is then a "cancelled" error).
PythonRuleSet compilePythonRules(const QString& path, const QJsonObject& siteRanks = {},
                                 const std::atomic<bool>* cancel = nullptr);

// Internal, shared with module replacement: runs the compiler in the worker (`mode` "rules" for a
// rule file, "module" for a module file) on `path`, its output in `workDir`, with `request`
// written as its request file when not empty. Returns result.json's object, read under the input
// file policy; on failure it is empty and `error` says why (naming the rule or module file), at
// the file's line, with a hint where there is something to do.
QJsonObject runPythonChild(const QString& mode, const QString& path, const QString& workDir,
                           const QJsonObject& request, RuleError& error, const std::atomic<bool>* cancel = nullptr);

// Graph IR text read back from a .pt2 the child exported: through Graft's own import, the module
// input dropped, inputs renamed to `args`, tensor types left plain. `ranks` gets each input's rank
// where the program knows it (-1 otherwise). Empty with `error` set when it cannot be used.
QString pt2FunctionIr(const QString& file, const QStringList& args, QString& error, QVector<int>* ranks = nullptr,
                      QStringList* sizedInputs = nullptr);

// Turns the pattern's scalar constants into inputs with `%cN == LITERAL` conditions (appended to
// `conditions`), and gives the replacement the same inputs: a frozen graph shares its constants
// between ops, which the subgraph matcher would refuse. Throws on IR it cannot parse.
void liftPatternConstants(QString& pattern, QString& replacement, QStringList& conditions);

// The ranks of the tensors feeding each op kind of the revision, for rule examples: {"aten::conv2d":
// {"positions": [4, 4, 1, -1, …], "names": {"input": 4, "weight": 4, "bias": 1}}}, the most frequent
// rank at each input (-1: not a tensor, or not known). Ranks come from the values' types, the
// weights, `inputRanks` (forward's arguments) and a propagation through common ops.
QJsonObject siteRanks(const model::Revision& revision, const QVector<int>& inputRanks = {});
// The same for the document's current revision, its inputs' ranks from its example or default inputs.
QJsonObject siteRanks(const model::Document& document);

// The same for TorchScript IR text the child printed (a trace or a script).
QString tsFunctionIr(const QString& ir, const QStringList& args, QString& error);

}  // namespace graft::core::rewrite
