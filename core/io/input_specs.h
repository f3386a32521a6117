#pragma once
// Inputs as the GUI holds them: the one spec syntax of every input box, and inputs resolved (on a
// worker while the GUI thread waits: files reach 4 GiB) into the InputResult every job's inputs
// come as (io/input_set.h), whose snapshot() a job may read while the user opens, edits or closes
// models.
#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QVector>
#include <memory>

#include "core/io/input_set.h"

namespace graft::core::model { class Document; class Revision; }

namespace graft::core::io {

using model::InputSet;
using model::InputsPtr;

// One spec per forward argument: split at ';' or whitespace outside brackets and double quotes,
// so "1x3x8x8 3", "1x3x8x8; 3" and "(2x2, 3x3) none" all read the same, and "\"my x.pt\"" is one.
QStringList splitInputSpecs(const QString& text);

// Why one spec cannot be parsed (empty when it can): for validating an input field as it is typed.
QString checkInputSpec(const QString& spec);

// An input field's tooltip: the spec syntax, then `doc`'s inputs by name with their types and the
// ranges their symbolic sizes allow (no document: the syntax alone).
QString inputFieldHelp(const model::Document* doc);

// io::inputsFor on the specs of `text` (the document's defaults when it is blank); never throws.
InputResult resolveInputs(const model::Document& doc, const QString& text, quint64 seed);

// forward's arguments after self, for asking the user: name, TorchScript type ("Tensor", "int")
// and the spec the model's defaults would use for it (empty where unknown).
struct ArgumentInfo {
  QString name, type, defaultSpec;
};
QVector<ArgumentInfo> forwardArguments(const model::Revision& revision);

}  // namespace graft::core::io
