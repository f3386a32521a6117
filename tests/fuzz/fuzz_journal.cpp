// Session journals (core/edit/session): the bytes as a journal file, read by Session::readJournal
// and replayed by Session::replay onto a freshly loaded model, as crash recovery does in the GUI
// and `graft-cli replay` does. The journal's "source.sample" picks the built-in sample it replays
// onto (cnn, mlp or transformer; cnn otherwise), so seed journals written on the samples replay
// in full and mutations reach every edit kind, rule and pass.
#include "fuzz_support.h"

#include "core/edit/session.h"
#include "core/io/load.h"

#include <QtCore/QJsonObject>

#include <cstdio>
#include <cstdlib>
#include <map>

using namespace graft;

namespace {
// GRAFT_FUZZ_VERBOSE=1: print each replay's outcome (to check that the seeds replay in full).
const bool verbose = qEnvironmentVariableIntValue("GRAFT_FUZZ_VERBOSE") != 0;
// Never destroyed (see fuzz_support.cpp).
auto& samples = *new std::map<QString, std::unique_ptr<core::model::Document>>;
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init(argc, argv);
  for (const QString name : {QStringLiteral("cnn"), QStringLiteral("mlp"), QStringLiteral("transformer")}) {
    auto loaded = core::io::loadSample(name);
    if (!loaded.ok()) {
      std::fprintf(stderr, "fuzz_journal: the %s sample did not load\n", qPrintable(name));
      std::exit(1);
    }
    samples[name] = std::move(loaded.document);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const QString path = fuzz::writeScratch(QStringLiteral("journal.json"), data, size);
  if (path.isEmpty()) return 0;
  fuzz::asJob([&] {
    QString error;
    const auto journal = core::edit::Session::readJournal(path, &error);
    if (!journal) return;
    const QString sample = journal->value(QLatin1String("source")).toObject().value(QLatin1String("sample")).toString();
    const auto& base = samples.count(sample) ? samples[sample] : samples[QStringLiteral("cnn")];
    // A fresh document of the sample: revisions are immutable, so the loaded original is shared.
    core::model::Document doc(base->original(), base->ids(), base->sourcePath(), base->sampleName(), base->sourceSha256());
    core::edit::Session session(doc);
    const auto r = session.replay(*journal);
    if (verbose) std::fprintf(stderr, "replay: %s, %d applied %s\n", r.ok ? "ok" : "failed", r.applied, qPrintable(r.error));
  });
  return 0;
}
