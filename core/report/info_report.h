#pragma once
// `graft-cli info`: what a loaded model holds, as JSON.
#include <QtCore/QJsonObject>

namespace graft::core::model { class Document; }

namespace graft::core::report {

// Keys: ops, jit_nodes, groups, inputs, outputs, op_histogram, modules, frozen, source.
QJsonObject infoReport(const model::Document& document);

// The same facts as a short text for a terminal.
QString infoText(const model::Document& document);

}  // namespace graft::core::report
