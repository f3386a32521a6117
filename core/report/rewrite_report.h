#pragma once
// `graft-cli rules` and `graft-cli rewrite` output, shared with the GUI.
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"

#include <QtCore/QJsonObject>

namespace graft::core::report {

// Keys: rules[] {id, title, description, source, kind}, passes[] {name}, problems[].
QJsonObject rulesReport(const rewrite::RuleLibrary& library);
// Keys: applied[] {rule, kind, matches, skipped[] {reason, node, op}}, ops_before, ops_after.
QJsonObject rewriteReport(const rewrite::ApplyResult& result);
QString rewriteText(const rewrite::ApplyResult& result);

}  // namespace graft::core::report
