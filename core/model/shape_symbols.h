#pragma once
// Names of symbolic dimensions ("s77" in a torch.export program with a dynamic batch): a
// c10::ShapeSymbol per name, made once per process, so value types can carry them and every
// view (edge labels, shapes reports) prints the name.
#include <ATen/core/jit_type.h>

#include <QtCore/QString>

namespace graft::core::model {

// The symbol standing for `name`; the same symbol for the same name.
c10::ShapeSymbol symbolNamed(const QString& name);
// The name of a symbol made by symbolNamed, or "?" for any other non-static dimension.
QString symbolName(const c10::ShapeSymbol& symbol);

}  // namespace graft::core::model
