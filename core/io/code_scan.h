#pragma once
// A look at a TorchScript archive's code (its `code/` records, Python-like text) before libtorch
// compiles it. Two things there can hurt whoever opens the file:
// - code nested so deep that libtorch's compiler, which recurses once per level, overflows the
//   stack (`return ((((…x…))))` 100,000 deep, a sum of 100,000 terms): bounded here, always;
// - methods libtorch runs while it loads: `__setstate__` of every class whose objects the archive
//   holds. One that loops, or that calls (itself or through the methods and functions it calls)
//   an op reaching outside the process (model/effect_ops.h), runs only for a file the user trusts.
//   A `__setstate__` that only sets attributes and calls ops without outside effects (quantized
//   modules' packing of their weights) is straight-line code without effects, and loads.
// The scan reads names and keywords, not types: a call it cannot tell apart (a method named `save`)
// counts as the op of that name, which errs on the side of asking.
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace caffe2::serialize { class PyTorchStreamReader; }

namespace graft::core::io {

struct CodeScan {
  QString tooDeep;          // "code/__torch__/m.py line 9: parentheses nested 100000 deep (at most 200)"
  QStringList runsOnLoad;   // "__torch__.m.M.__setstate__ calls torch.save (writes a file)", one per method
};

// Limits libtorch's compiler stays well inside of on an 8 MiB stack (measured: tst_untrusted).
constexpr int kMaxCodeNesting = 200;        // brackets open at once
constexpr int kMaxOperatorsPerLine = 2500;  // binary operators in one logical line
constexpr int kMaxIndent = 200;             // columns of indentation (100 nested blocks)

CodeScan scanArchiveCode(caffe2::serialize::PyTorchStreamReader& reader);

// The same for one code file's text (`file` names it in messages): for tests and fuzzing.
CodeScan scanCode(const QString& file, const QByteArray& text);

}  // namespace graft::core::io
