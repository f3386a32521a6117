#pragma once
// The rule library: rule files shipped in the qrc (:/rules, source "builtin") and the user's
// rule folder (GRAFT_RULES_DIR, else QStandardPaths::AppDataLocation + "/rules"). Python rule
// files (:/rules/python/*.py and *.py in the user folder) are listed beside the text rules by an
// id of their own, "python:" + the file's stem with '_' as '-' (python:fold-linear-bn beside the
// text rule fold-linear-bn), and compiled only when applied, since that runs Python.
#include "core/rewrite/rule_parser.h"

#include <QtCore/QStringList>

namespace graft::core::rewrite {

// A Python rule file of the library; `path` is a qrc path for shipped files.
struct PythonLibraryRule {
  QString id, title, description;
  QString path;
  QString source;  // "builtin" or the file's path, as for text rules
};

inline constexpr const char* kPythonRulePrefix = "python:";

class RuleLibrary {
 public:
  // Reads every rule; files that fail to parse are left out and listed in problems().
  static RuleLibrary load();
  static QString userRuleFolder();

  const QVector<Rule>& rules() const { return rules_; }
  const QVector<RuleError>& problems() const { return problems_; }
  model::Diagnostics diagnostics() const;  // problems() as "rewrite" errors (each file is left out)
  const Rule* find(const QString& id) const;
  const QVector<PythonLibraryRule>& pythonRules() const { return pythonRules_; }
  const PythonLibraryRule* findPython(const QString& id) const;

  // `spec` is a rule id or a path to a .rule file. On failure `error` says why (line:column for
  // a malformed file) and the result is nullopt; `diagnostic`, when given, gets the same as a
  // "rewrite" error with the file, line and column where there are some.
  std::optional<Rule> resolve(const QString& spec, QString* error, model::Diagnostic* diagnostic = nullptr) const;

 private:
  void addFolder(const QString& folder, bool shipped);
  void addPythonFolder(const QString& folder, bool shipped);
  std::optional<Rule> resolveText(const QString& spec, QString* error, model::Diagnostic* diagnostic) const;
  QVector<Rule> rules_;
  QVector<PythonLibraryRule> pythonRules_;
  QVector<RuleError> problems_;
};

}  // namespace graft::core::rewrite
