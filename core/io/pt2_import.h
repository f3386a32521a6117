#pragma once
// torch.export programs (.pt2, the PT2 archive that torch.export.save writes): the fx graph of
// ATen ops imported into a torch::jit::Graph, so that everything downstream serves both formats.
#include "core/io/load_error.h"
#include "core/model/node_place.h"
#include "core/model/symbol_ranges.h"

#include <ATen/core/ivalue.h>

#include <QtCore/QString>
#include <QtCore/QStringList>
#include <memory>
#include <optional>

namespace torch::jit { struct Module; }

namespace graft::core::io {

// Whether `path` is a PT2 archive (its `archive_format` record says "pt2"). Never throws.
bool isPt2Archive(const QString& path);

struct Pt2Import {
  std::shared_ptr<torch::jit::Module> module;  // forward(self, *user_inputs): the program's graph
  std::vector<c10::IValue> exampleInputs;      // the archive's sample inputs, flattened (kwargs and dicts too)
  QStringList inputNames, outputNames;          // flat inputs and outputs by path ("d.a", "logits"), when known
  QByteArray provenanceRecord;                  // Graft's record (model/saved_record.h), when Graft saved it
  std::vector<model::NodePlace> places;         // each op node's module path and class names, graph order
  model::SymbolRanges symbolRanges;             // range_constraints, by symbol
  LoadError error;                              // set when module is null
};

// Reads the program's model.json and weights. Every fx call_function on an ATen (or other
// registered) operator overload becomes a node of that overload; parameters, buffers and lifted
// constants become tensor constants (the program is frozen by construction); fx node names name
// the values; nn_module_stack becomes each node's module call stack (the module groups);
// stack_trace becomes its source range; tensor metadata types every value (shapes on the edges,
// input shapes for runs). Runs no Python and no TorchScript code.
Pt2Import importPt2(const QString& path);

}  // namespace graft::core::io
