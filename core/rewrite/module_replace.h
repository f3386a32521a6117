#pragma once
// Replacing every instance of a module class by a user's nn.Module (torch.fx's "swap Linear for
// OptimizedLinear"): `--replace-module CLASS=file.py:NewModule [--param new=old ...]`.
//
// Each instance (a module path whose class, as the module stack records it, is CLASS or ends in
// `.CLASS`) is cut out of the graph as a pattern: its op nodes, the values reaching it from
// outside as inputs, its parameters (tensor constants) as inputs named after the old module's
// parameters. A child Python (python_rules) builds NewModule from the old instance's attributes
// (in_features, out_features, … inferred from its parameters) or NewModule.from_module(old), maps
// NewModule's parameters to the old ones by name (or `--param`), and exports the forward with the
// parameters as inputs. Each instance becomes one rule step limited to its own match, so
// provenance, module paths, journaling and saves are those of rules. An instance that cannot be
// replaced is skipped with its reason.
#include "core/model/document.h"
#include "core/rewrite/apply.h"

#include <QtCore/QHash>
#include <QtCore/QSet>

namespace graft::core::rewrite {

struct ModuleReplacement {
  QString className;   // "Linear" or "torch.nn.modules.linear.Linear"
  QString file;        // the Python file defining the new module
  QString newClass;    // its class name in that file
  QHash<QString, QString> params;  // new parameter name → old parameter name
  QString error;       // why the spec is malformed
};

// Parses "CLASS=FILE.py:NewModule" and "NEW=OLD" items.
ModuleReplacement parseModuleReplacement(const QString& spec, const QStringList& params);

struct ModuleReplacementPlan {
  QVector<Step> steps;              // one per replaceable instance
  model::Diagnostics diagnostics;   // one warning per instance left as it was, with the reason
  RuleError error;                  // the file or class could not be used at all
};

ModuleReplacementPlan planModuleReplacement(const model::Document& document, const ModuleReplacement& replacement);

}  // namespace graft::core::rewrite
