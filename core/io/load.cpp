#include "core/io/load.h"

#include "core/io/archive_probe.h"
#include "core/io/operator_libraries.h"
#include "core/io/pt2_import.h"
#include "core/run/input_set.h"
#include "core/samples/samples.h"

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

LoadResult finish(const torch::jit::Module& module, const LoadOptions& options, QString path,
                  QString sample, QByteArray sha, bool frozen = false) {
  LoadResult result;
  model::NodeIdSource ids;
  auto rev = model::Revision::original(module, frozen || options.freeze, QStringLiteral("Original"), ids);
  result.document = std::make_unique<model::Document>(std::move(rev), ids, std::move(path),
                                                      std::move(sample), std::move(sha));
  return result;
}

LoadResult failure(LoadError error) {
  LoadResult r;
  r.error = std::move(error);
  return r;
}

}  // namespace

LoadResult loadFile(const QString& path, const LoadOptions& options) {
  loadTorchvisionOperators();  // once: detection and segmentation models call torchvision::*
  if (QFileInfo(path).isFile() && isPt2Archive(path)) {
    auto imported = importPt2(path);
    if (!imported.module) return failure(imported.error);
    // A program is frozen by construction: its weights are graph constants.
    auto result = finish(*imported.module, options, QFileInfo(path).absoluteFilePath(), {}, sha256Of(path), true);
    result.document->setFormat(QStringLiteral("pt2"));
    if (!imported.exampleInputs.empty()) {
      auto examples = std::make_shared<run::InputSet>();
      examples->values = imported.exampleInputs;
      for (const auto& v : examples->values) examples->descriptions << run::describe(v);
      result.document->setExampleInputs(std::move(examples));
    }
    return result;
  }
  if (LoadError probe = probeArchive(path); probe.isError()) return failure(probe);
  torch::jit::Module loaded;
  try {
    loaded = torch::jit::load(path.toStdString(), torch::kCPU);
  } catch (const c10::Error& e) {
    return failure(classifyLoadFailure(path, QString::fromStdString(e.what_without_backtrace())));
  } catch (const std::exception& e) {
    return failure(classifyLoadFailure(path, QString::fromUtf8(e.what())));
  }
  if (!loaded.find_method("forward"))
    return failure({LoadErrorKind::NoForward,
                    QStringLiteral("%1 is a TorchScript module without a forward method.").arg(QFileInfo(path).fileName()),
                    QStringLiteral("Graft shows a module's forward graph. Save the module whose forward you want to see."),
                    {}});
  try {
    return finish(prepare(loaded, options), options, QFileInfo(path).absoluteFilePath(), {}, sha256Of(path));
  } catch (const c10::Error& e) {
    return failure({LoadErrorKind::Other,
                    QStringLiteral("%1 loaded, but could not be frozen and inlined.").arg(QFileInfo(path).fileName()),
                    QStringLiteral("Try opening it with --no-freeze (File > Open without freezing)."),
                    QString::fromStdString(e.what_without_backtrace())});
  }
}

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
    return finish(prepare(*module, options), options, {}, name, {});
  } catch (const std::exception& e) {
    return failure({LoadErrorKind::Other, QStringLiteral("The sample \"%1\" could not be built.").arg(name), {},
                    QString::fromUtf8(e.what())});
  }
}

}  // namespace graft::core::io
