#pragma once
// The inputs of a run: parsed from specs ("1x3x224x224:float32", tensor files, "(spec,spec)" tuples,
// "[spec,spec]" lists) or defaulted from what the model tells us.
#include "core/model/diagnostic.h"
#include "core/model/input_set.h"

#include <ATen/core/ivalue.h>

#include <QtCore/QString>
#include <QtCore/QStringList>
#include <cstdint>
#include <optional>
#include <vector>

namespace graft::core::model { class Document; class Revision; }

namespace graft::core::io {

using model::InputSet;

struct InputResult {
  std::optional<InputSet> inputs;
  QString error;  // set when inputs is empty
  // The forward argument (0-based, without self) whose shape the model does not record, when
  // that is why there are no inputs: the CLI asks for --input, the GUI for the shapes.
  int missingShape = -1;
  // The error as an error of `job` ("compare", "profile", "run"), or nothing.
  model::Diagnostics diagnostics(const QString& job, const QString& hint = {}) const;
  // The inputs as an immutable snapshot a job may hold while the document changes (null when
  // there are none).
  model::InputsPtr snapshot() const { return inputs ? std::make_shared<const InputSet>(*inputs) : nullptr; }
};

// Builds one positional input per spec. A spec is
//   DIMSxDIMS[:dtype]   random values (normal for floating dtypes, 0..9 for integers), seeded
//   PATH                a tensor file: torch.save'd tensor (or list/tuple of tensors), or .npy
//   (SPEC,SPEC,...)     a tuple;  [SPEC,SPEC,...] a list (of tensors, ints, floats or bools)
//   3, -2, int:3        an int;  0.5, 1e-3, float:2 a float;  true, bool:false a bool;  none
// A bare integer is an int; a 1-D tensor of 3 values is "3:float32". The same seed always gives
// the same values.
InputResult parseInputs(const QStringList& specs, std::uint64_t seed);

// Inputs for `doc` when none were given: the file's own example inputs (.pt2), a built-in
// sample's shape, else the traced input types where complete; otherwise an error naming the input
// whose shape is not recorded (`missingShape`).
InputResult defaultInputs(const model::Document& doc, std::uint64_t seed);

// The one way every job gets its inputs: `specs` parsed when given, else `doc`'s defaults. A spec
// NAME=SPEC gives the input of that name (see inputNames); positional specs come first, and
// inputs given neither way take the defaults (a .pt2's sample inputs).
InputResult inputsFor(const model::Document& doc, const QStringList& specs, std::uint64_t seed);

// The names of `doc`'s inputs, in order: a program's flat input paths ("x", "d.a", "attention_mask"),
// else forward's argument names.
QStringList inputNames(const model::Document& doc);

}  // namespace graft::core::io
