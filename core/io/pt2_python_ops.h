#pragma once
// Python operators on symbolic sizes in a torch.export program ("_operator.mul", "torch.sym_max")
// and the TorchScript operators that compute them on ints, floats and bools. One table read both
// ways: the import maps a target to its operator, a save maps the operator back to its target.
#include <ATen/core/interned_strings.h>

#include <QtCore/QString>
#include <QtCore/QStringList>

#include <optional>

namespace graft::core::io::pt2 {

// The TorchScript operator for a Python target ("_operator.mul" -> aten::mul; the overload is
// chosen by the argument types); none for a target that is not such an operator.
std::optional<c10::Symbol> torchScriptOperatorOf(const QString& pythonTarget);

// How a save writes a scalar node of `op`: the Python target torch.export.load reads back, its
// parameter names as torch's serializer names them, and the sympy function that gives its
// symbolic value ("Mul"; empty where the value is built another way or not at all).
struct PythonCall {
  QString target;
  QStringList parameters;
  QString sympy;
};
std::optional<PythonCall> pythonCallOf(c10::Symbol op);

}  // namespace graft::core::io::pt2
