// Input specs (core/run/input_specs, input_set): the text of an input box or of --input, split
// and resolved for a model the way the GUI does (io::resolveInputs), and the tensor files a
// spec may name.
//
// The first byte picks what the rest is:
//   'N'  the bytes of a .npy file, resolved as the spec "in.npy"
//   'T'  the bytes of a torch.save'd file, resolved as the spec "in.pt"
//   anything else: spec text (blank text asks for the model's defaults)
// Spec text naming tensors of more than 2^22 elements in all is skipped: such a spec asks for that much
// memory on purpose, and the fuzzer would only measure the machine.
#include "fuzz_support.h"

#include "core/io/load.h"
#include "core/io/input_specs.h"

#include <QtCore/QDir>

#include <cstdio>
#include <cstdlib>

using namespace graft;

namespace {

core::model::Document* model = nullptr;  // never destroyed (see fuzz_support.cpp)

// The elements all "AxBxC" runs of digits in `text` ask for together.
double elementsAskedFor(const QString& text) {
  double total = 0, product = 1, number = 0;
  bool inNumber = false;
  for (const QChar c : text + QLatin1Char(' ')) {
    if (c.isDigit()) {
      number = number * 10 + c.digitValue();
      inNumber = true;
      continue;
    }
    if (inNumber) product *= number;
    number = 0;
    inNumber = false;
    if (c != QLatin1Char('x') && c != QLatin1Char('X')) {
      if (product > 1) total += product;
      product = 1;
    }
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init(argc, argv);
  auto loaded = core::io::loadSample(QStringLiteral("mlp"));
  if (!loaded.ok()) {
    std::fprintf(stderr, "fuzz_inputs: the mlp sample did not load: %s\n", qPrintable(loaded.error.headline));
    std::exit(1);
  }
  model = loaded.document.release();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  QString text;
  if (data[0] == 'N' || data[0] == 'T') {
    text = data[0] == 'N' ? QStringLiteral("in.npy") : QStringLiteral("in.pt");
    if (fuzz::writeScratch(text, data + 1, size - 1).isEmpty()) return 0;
  } else {
    text = QString::fromUtf8(reinterpret_cast<const char*>(data + 1), qsizetype(size - 1));
    // Only the harness's own files: no absolute paths (/dev/zero never ends).
    if (text.contains(QLatin1Char('/')) || text.contains(QLatin1Char('\\')) || elementsAskedFor(text) > double(1 << 22)) return 0;
  }
  // Relative paths in the text reach only the harness's own files.
  const QString previous = QDir::currentPath();
  QDir::setCurrent(fuzz::scratchDir());
  fuzz::asJob([&] {
    core::io::resolveInputs(*model, text, 7);
    for (const QString& spec : core::io::splitInputSpecs(text)) core::io::checkInputSpec(spec);
  });
  QFile::remove(QStringLiteral("in.npy"));
  QFile::remove(QStringLiteral("in.pt"));
  QDir::setCurrent(previous);
  return 0;
}
