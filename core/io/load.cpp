#include "core/io/load.h"
#include "core/model/job_guard.h"

#include "core/io/archive_probe.h"
#include "core/io/code_scan.h"
#include "core/io/file_policy.h"
#include "core/io/operator_libraries.h"
#include "core/io/pt2_import.h"
#include "core/io/save.h"
#include "core/model/document.h"
#include "core/model/graph_walk.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "core/samples/samples.h"

#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/script.h>

#include <QtCore/QCryptographicHash>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>

namespace graft::core::io {

namespace {

// The source's fingerprint, which crash recovery checks before replaying edits on it: the
// SHA-256 of the file; of a large one (both formats are zip archives), the SHA-256 of its size, its
// first MiB and its last 4 MiB, which hold the archive's central directory with the CRC-32 of
// every record. Reading gigabytes of weights just to open a model is what this avoids.
QByteArray sha256Of(const QString& path) {
  constexpr qint64 kWhole = 64 << 20, kHead = 1 << 20, kTail = 4 << 20;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  QCryptographicHash hash(QCryptographicHash::Sha256);
  if (f.size() <= kWhole) {
    hash.addData(&f);
  } else {
    hash.addData(QByteArray::number(f.size()));
    hash.addData(f.read(kHead));
    f.seek(f.size() - kTail);
    hash.addData(f.read(kTail));
  }
  return hash.result().toHex();
}

// eval, freeze (freeze_module alone: no frozen-graph optimisations), inline.
torch::jit::Module prepare(const torch::jit::Module& loaded, const LoadOptions& options) {
  torch::jit::Module module = loaded;
  module.eval();
  if (options.freeze) {
    module = torch::jit::freeze_module(module);
  } else {
    module = module.clone();
  }
  auto graph = module.get_method("forward").graph();
  torch::jit::Inline(*graph);
  return module;
}

// The record a file saved by Graft carries, when it still fits the graph as loaded (one entry per
// op node, same ops in the same order); a record that does not fit is ignored.
std::shared_ptr<const model::SavedRecord> fittingRecord(const QByteArray& json, const torch::jit::Graph& graph) {
  if (json.isEmpty()) return nullptr;
  auto record = model::SavedRecord::fromJson(json, nullptr);
  if (!record) return nullptr;
  size_t ordinal = 0;
  bool fits = true;
  model::forEachNode(graph, [&](torch::jit::Node* n) {
    if (n->kind().is_prim()) return;
    fits = fits && ordinal < record->nodes.size() &&
           QString::fromStdString(n->kind().toQualString()) == record->nodes[ordinal].op;
    ++ordinal;
  });
  if (!fits || ordinal != record->nodes.size()) return nullptr;
  return std::make_shared<const model::SavedRecord>(std::move(*record));
}

// `places`: op nodes' places the graph's call stacks do not hold (a torch.export program's); a
// fitting saved record's places take their place.
LoadResult finish(const torch::jit::Module& module, const LoadOptions& options, QString path,
                  QString sample, QByteArray sha, bool frozen = false, const QByteArray& savedRecord = {},
                  std::vector<model::NodePlace> places = {}, model::SymbolRanges symbolRanges = {},
                  const model::ModuleNames* moduleNames = nullptr) {
  LoadResult result;
  auto record = fittingRecord(savedRecord, *module.get_method("forward").graph());
  if (record) {
    places.clear();
    for (const auto& n : record->nodes) places.push_back(n.place);
  }
  model::NodeIdSource ids;
  auto rev = model::Revision::original(module, frozen || options.freeze, QStringLiteral("Original"), ids, &places,
                                       std::move(symbolRanges), moduleNames);
  if (options.trust) rev->sourceTrust()->grant();
  result.document = std::make_unique<model::Document>(std::move(rev), ids, std::move(path),
                                                      std::move(sample), std::move(sha));
  result.document->setSavedRecord(std::move(record));
  return result;
}

LoadResult failure(LoadError error) {
  LoadResult r;
  r.error = std::move(error);
  return r;
}

LoadResult loadUnguarded(const QString& path, const LoadOptions& options);

// What the archive's code would do to the process that compiles it (io/code_scan.h): code nested
// too deep is refused always; a __setstate__ that loops or reaches outside, unless trusted.
LoadError refuseCode(const QString& path, const LoadOptions& options) {
  caffe2::serialize::PyTorchStreamReader reader(path.toStdString());
  const CodeScan scan = scanArchiveCode(reader);
  const QString file = QFileInfo(path).fileName();
  if (!scan.tooDeep.isEmpty())
    return {
        LoadErrorKind::CodeTooDeep,
        QStringLiteral("%1 is refused: its code is nested deeper than libtorch's compiler can take (%2).")
            .arg(file, scan.tooDeep),
        QStringLiteral("TorchScript that torch.jit.script or torch.jit.trace writes is never this deep; the file was "
                       "made by hand or damaged. Save the model again from its Python code."),
        scan.tooDeep};
  if (options.trust || scan.runsOnLoad.isEmpty()) return {};
  return {
      LoadErrorKind::RunsCodeOnLoad,
      QStringLiteral("%1 would run its own code while it opens: %2.").arg(file, scan.runsOnLoad.front()),
      QStringLiteral("torch.jit.load runs every __setstate__ of a file's classes. Open it only if you trust where it "
                     "came from: graft --trust %1, graft-cli COMMAND --trust %1, or File > Open Trusted… in the "
                     "window. A torch.export program (.pt2) opens without running anything.")
          .arg(file),
      scan.runsOnLoad.join(QLatin1Char('\n'))};
}
}  // namespace

LoadResult loadFile(const QString& path, const LoadOptions& options) {
  return model::guarded(
      [&] { return loadUnguarded(path, options); },
      [&](const QString& why) {
        return failure(
            {LoadErrorKind::Other, QStringLiteral("%1 could not be opened.").arg(QFileInfo(path).fileName()), {}, why});
      });
}

namespace {
LoadResult loadUnguarded(const QString& path, const LoadOptions& options) {
  // The input policy before anything opens the file: a FIFO or a device is never opened for a
  // blocking read, and a /proc file (size 0, yet bytes) is refused.
  if (QFileInfo::exists(path) && !QFileInfo(path).isDir())
    if (const QString why = checkInputFile(path, QStringLiteral("model")); !why.isEmpty())
      return failure({LoadErrorKind::FileUnreadable, why.left(1).toUpper() + why.mid(1) + QLatin1Char('.'),
                      QStringLiteral("Open a .pt or .pt2 file."), {}});
  loadTorchvisionOperators();  // once: detection and segmentation models call torchvision::*
  if (QFileInfo(path).isFile() && isPt2Archive(path)) {
    auto imported = importPt2(path);
    if (!imported.module) return failure(imported.error);
    // A program is frozen by construction: its weights are graph constants.
    auto result = finish(*imported.module, options, QFileInfo(path).absoluteFilePath(), {}, sha256Of(path), true,
                         imported.provenanceRecord, std::move(imported.places), std::move(imported.symbolRanges));
    result.document->setFormat(QStringLiteral("pt2"));
    result.document->setInputNames(imported.inputNames);
    result.document->setOutputNames(imported.outputNames);
    if (!imported.exampleInputs.empty()) {
      auto examples = std::make_shared<model::InputSet>();
      examples->values = imported.exampleInputs;
      for (const auto& v : examples->values) examples->descriptions << run::describe(v);
      result.document->setExampleInputs(std::move(examples));
    }
    return result;
  }
  if (LoadError probe = probeArchive(path); probe.isError()) return failure(probe);
  if (LoadError refused = refuseCode(path, options); refused.isError()) return failure(refused);
  torch::jit::Module loaded;
  torch::jit::ExtraFilesMap extra{{kProvenanceExtraFile, ""}};
  try {
    loaded = torch::jit::load(path.toStdString(), torch::kCPU, extra);
  } catch (const c10::Error& e) {
    return failure(classifyLoadFailure(path, QString::fromStdString(e.what_without_backtrace())));
  } catch (const std::exception& e) {
    return failure(classifyLoadFailure(path, QString::fromUtf8(e.what())));
  }
  if (!loaded.find_method("forward"))
    return failure(
        {LoadErrorKind::NoForward,
         QStringLiteral("%1 is a TorchScript module without a forward method.").arg(QFileInfo(path).fileName()),
         QStringLiteral("Graft shows a module's forward graph. Save the module whose forward you want to see."),
         {}});
  try {
    const std::string& record = extra[kProvenanceExtraFile];
    // A file Graft saved holds a revision that was frozen already: freezing it again would run
    // freeze_module's constant folding over what the user saved (a rewrite's aten::t of a weight
    // would vanish), so it is only inlined, and stands as frozen.
    const bool savedByGraft = !record.empty() && options.freeze;
    LoadOptions asSaved = options;
    if (savedByGraft) asSaved.freeze = false;
    const model::ModuleNames names = model::moduleNamesOf(loaded);  // before freezing removes them
    return finish(prepare(loaded, asSaved), asSaved, QFileInfo(path).absoluteFilePath(), {}, sha256Of(path),
                  savedByGraft, QByteArray(record.data(), qsizetype(record.size())), {}, {}, &names);
  } catch (...) {
    const QString file = QFileInfo(path).fileName();
    return failure(
        {LoadErrorKind::Other,
         options.freeze ? QStringLiteral("%1 loaded, but could not be frozen and inlined.").arg(file)
                        : QStringLiteral("%1 loaded, but its forward could not be inlined.").arg(file),
         options.freeze
             ? QStringLiteral("Try opening it unfrozen: graft --no-freeze %1, or graft-cli COMMAND --no-freeze %1.")
                   .arg(file)
             : QString(),
         model::currentExceptionText()});
  }
}
}  // namespace

LoadResult loadSample(const QString& name, const LoadOptions& options) {
  std::optional<torch::jit::Module> module;
  try {
    module = samples::build(name);
  } catch (const std::exception& e) {
    return failure({LoadErrorKind::Other, QStringLiteral("The sample \"%1\" could not be built.").arg(name), {},
                    QString::fromUtf8(e.what())});
  }
  if (!module)
    return failure({LoadErrorKind::UnknownSample, QStringLiteral("There is no built-in sample named \"%1\".").arg(name),
                    QStringLiteral("Built-in samples: %1.").arg(samples::names().join(QStringLiteral(", "))), {}});
  try {
    LoadOptions own = options;
    own.trust = true;  // Graft's own code
    torch::jit::Module prepared = prepare(*module, own);
    // The sample's input rank is known: its graph records it (a rule's `%x rank N` condition reads
    // it), but not its sizes, which any run may choose.
    auto graph = prepared.get_method("forward").graph();
    if (const auto* info = samples::find(name); info && graph->inputs().size() == 2)
      graph->inputs()[1]->setType(c10::TensorType::create(at::kFloat, at::kCPU, info->inputShape.size(), false));
    return finish(prepared, own, {}, name, {});
  } catch (const std::exception& e) {
    return failure({LoadErrorKind::Other, QStringLiteral("The sample \"%1\" could not be built.").arg(name), {},
                    QString::fromUtf8(e.what())});
  }
}

}  // namespace graft::core::io
