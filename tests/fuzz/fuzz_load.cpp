// Model files through io::loadFile, the one load entry point of the GUI and graft-cli: the archive
// probe, torch::jit::load, the .pt2 import, freezing and inlining.
//
// The first byte picks how the rest becomes a file:
//   'Z' / 'z'  a list of records, written as a valid PyTorch zip archive with correct CRCs, so that
//              mutations reach the records' contents (pickles, code, the .pt2 json) instead of
//              failing the zip checks; 'z' loads unfrozen.
//              Records: [u8 name length][name][u32 little-endian size][bytes], repeated.
//   anything else: the rest, byte for byte (the probe and the zip reader see damaged files).
// tests/fuzz/make_corpus.sh turns the test models into seeds of both kinds.
#include "fuzz_support.h"

#include "core/io/load.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"

#include <QtCore/QFile>

#include <caffe2/serialize/inline_container.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

using namespace graft;

namespace {

QString writeArchive(const std::uint8_t* data, std::size_t size) {
  const QString path = fuzz::scratchDir() + QStringLiteral("/model.pt");
  std::set<std::string> names;
  try {
    caffe2::serialize::PyTorchStreamWriter writer(path.toStdString());
    std::size_t pos = 0;
    while (pos < size) {
      const std::size_t nameLen = data[pos++];
      if (nameLen == 0 || pos + nameLen > size) break;
      std::string name(reinterpret_cast<const char*>(data + pos), nameLen);
      pos += nameLen;
      std::uint32_t len = 0;
      for (int i = 0; i < 4 && pos < size; ++i) len |= std::uint32_t(data[pos++]) << (8 * i);
      const std::size_t take = std::min<std::size_t>(len, size - pos);
      // The writer adds its own version and serialization id, and refuses a name twice.
      const bool reserved = name == "version" || name == ".data/version" || name == ".data/serialization_id";
      const bool printable = std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 127; });
      if (!reserved && printable && names.insert(name).second) writer.writeRecord(name, data + pos, take);
      pos += take;
    }
    writer.writeEndOfFile();
  } catch (const std::exception&) {
    return {};
  }
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool archive = data[0] == 'Z' || data[0] == 'z';
  const QString path = archive ? writeArchive(data + 1, size - 1) : fuzz::writeScratch(QStringLiteral("model.pt"), data + 1, size - 1);
  if (path.isEmpty()) return 0;
  // GRAFT_FUZZ_WRITE_TO=FILE keeps a copy of the file loaded (to turn a finding into a test file).
  if (const QString keep = qEnvironmentVariable("GRAFT_FUZZ_WRITE_TO"); !keep.isEmpty()) {
    QFile::remove(keep);
    QFile::copy(path, keep);
  }
  core::io::LoadOptions options;
  options.freeze = data[0] != 'z';
  fuzz::asJob([&] {
    const auto r = core::io::loadFile(path, options);
    // GRAFT_FUZZ_VERBOSE=1: print each outcome (to check that the seeds load).
    if (qEnvironmentVariableIntValue("GRAFT_FUZZ_VERBOSE"))
      std::fprintf(stderr, "load: %s\n",
                   qPrintable(r.ok() ? QStringLiteral("ok, %1 example inputs").arg(r.document->exampleInputs() ? r.document->exampleInputs()->values.size() : 0)
                                     : r.error.headline + QLatin1Char(' ') + r.error.details));
  });
  return 0;
}
