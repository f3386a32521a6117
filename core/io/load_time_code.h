#pragma once
// What libtorch would run while it loads a TorchScript archive, decided from the compiled program.
// torch.jit.load unpickles the archive's objects and calls `__setstate__` of every class the
// pickles name. Here libtorch's own compiler compiles those classes from the archive's code (which
// runs nothing), and the compiled graph of each `__setstate__` is walked with everything it can
// reach: methods (`prim::CallMethod`), functions (`prim::CallFunction`), `with` blocks
// (`prim::Enter`/`prim::Exit` call `__enter__`/`__exit__`), nested blocks and closures. Load-time
// code may set attributes, index tuples and pack quantized weights; a loop, an op with an outside
// effect, an interface call (which could reach any class) or an op whose cost follows a value
// (`ones(n)`, `matrix_power(x, n)`, `[0] * n`) is refused. Deciding from text would miss what the
// compiler accepts in other forms (`(self.f)(…)`, comments inside a call, one-line defs).
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace caffe2::serialize { class PyTorchStreamReader; }

namespace graft::core::io {

struct LoadTimeCode {
  // "__torch__.m.M.__setstate__ calls aten::save, which writes a file (code/__torch__/m.py line 7)"
  QStringList refusals;
  // Why the load-time code could not be compiled or its pickles read: nothing is known of it.
  QString uncheckable;
  bool safe() const { return refusals.isEmpty() && uncheckable.isEmpty(); }
};

// The archive's code must have passed the nesting bound (code_scan.h) first: compiling recurses.
LoadTimeCode checkLoadTimeCode(caffe2::serialize::PyTorchStreamReader& reader);

}  // namespace graft::core::io
