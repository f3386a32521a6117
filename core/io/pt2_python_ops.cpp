#include "core/io/pt2_python_ops.h"

#include <array>

namespace graft::core::io::pt2 {

namespace {

struct Row {
  const char* target;
  const char* op;
  const char* parameters;  // comma-separated; empty: the import reads it, a save never writes it
  const char* sympy;
};

// torch/_export/serde/serialize.py's _SYM_OPS; a save writes the first row of an operator that
// has parameters (the targets torch's deserializer takes). "sub" and "neg" have no one sympy
// function: their value is built from Add and Mul.
constexpr std::array kRows{
    Row{"_operator.add", "aten::add", "a,b", "Add"},
    Row{"_operator.sub", "aten::sub", "a,b", ""},
    Row{"_operator.mul", "aten::mul", "a,b", "Mul"},
    Row{"_operator.floordiv", "aten::floordiv", "a,b", "FloorDiv"},
    Row{"_operator.truediv", "aten::div", "a,b", "IntTrueDiv"},
    Row{"_operator.mod", "aten::remainder", "a,b", "PythonMod"},
    Row{"_operator.pow", "aten::pow", "a,b", "PowByNatural"},
    Row{"_operator.neg", "aten::neg", "a", ""},
    Row{"_operator.eq", "aten::eq", "a,b", "Eq"},
    Row{"_operator.ne", "aten::ne", "a,b", "Ne"},
    Row{"_operator.lt", "aten::lt", "a,b", "StrictLessThan"},
    Row{"_operator.le", "aten::le", "a,b", "LessThan"},
    Row{"_operator.gt", "aten::gt", "a,b", "StrictGreaterThan"},
    Row{"_operator.ge", "aten::ge", "a,b", "GreaterThan"},
    Row{"_operator.and_", "aten::__and__", "a,b", "And"},
    Row{"_operator.or_", "aten::__or__", "a,b", "Or"},
    Row{"torch.sym_not", "aten::__not__", "a", "Not"},
    Row{"_operator.not_", "aten::__not__", "", ""},
    Row{"torch.sym_max", "prim::max", "a,b", "Max"},
    Row{"torch.sym_min", "prim::min", "a,b", "Min"},
    Row{"torch.sym_float", "aten::Float", "a", "ToFloat"},
    Row{"torch.sym_int", "aten::Int", "a", "TruncToInt"},
    Row{"math.trunc", "aten::Int", "", ""},
    Row{"math.ceil", "aten::ceil", "", ""},
    Row{"math.floor", "aten::floor", "", ""},
    Row{"torch.sym_sqrt", "aten::sqrt", "a", ""},
};

}  // namespace

std::optional<c10::Symbol> torchScriptOperatorOf(const QString& pythonTarget) {
  for (const Row& row : kRows)
    if (pythonTarget == QLatin1String(row.target)) return c10::Symbol::fromQualString(row.op);
  return std::nullopt;
}

std::optional<PythonCall> pythonCallOf(c10::Symbol op) {
  for (const Row& row : kRows) {
    if (*row.parameters == '\0' || c10::Symbol::fromQualString(row.op) != op) continue;
    return PythonCall{QLatin1String(row.target), QString::fromLatin1(row.parameters).split(QLatin1Char(',')),
                      QLatin1String(row.sympy)};
  }
  return std::nullopt;
}

}  // namespace graft::core::io::pt2
