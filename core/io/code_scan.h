#pragma once
// A look at a TorchScript archive's code (its `code/` records, Python-like text) before libtorch
// compiles it. Two things there can hurt whoever opens the file:
// - code nested so deep that libtorch's compiler, which recurses once per level, overflows the
//   stack (`return ((((…x…))))` 100,000 deep, a sum of 100,000 terms): bounded here, always;
// - methods libtorch runs while it loads: `__setstate__` of every class whose objects the archive
//   holds. These are judged from the compiled program (io/load_time_code.h), never from the text:
//   one that loops, reaches outside the process or costs what a value says runs only for a file
//   the user trusts; one that only sets attributes and packs weights (quantized modules') loads.
#include <QtCore/QString>
#include <QtCore/QStringList>

namespace caffe2::serialize { class PyTorchStreamReader; }

namespace graft::core::io {

struct CodeScan {
  QString tooDeep;          // "code/__torch__/m.py line 9: parentheses nested 100000 deep (at most 200)"
  QStringList runsOnLoad;   // "__torch__.m.M.__setstate__ calls aten::save, which writes a file (…)", per method
};

// Limits libtorch's compiler stays well inside of on an 8 MiB stack (measured: tst_untrusted).
constexpr int kMaxCodeNesting = 200;        // brackets open at once
constexpr int kMaxOperatorsPerLine = 2500;  // binary operators in one logical line
constexpr int kMaxIndent = 200;             // columns of indentation (100 nested blocks)

CodeScan scanArchiveCode(caffe2::serialize::PyTorchStreamReader& reader);

// The nesting bound alone, for one code file's text (`file` names it in messages): for tests and
// fuzzing.
CodeScan scanCode(const QString& file, const QByteArray& text);

}  // namespace graft::core::io
