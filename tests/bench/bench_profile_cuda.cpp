// Profiling overhead on CUDA, with per-node kernel times from the profiler's GPU activity
// (Kineto/CUPTI) and no synchronisation per op, as ratios to the plain forward measured in the
// same run:
//   Graft:   the profiled run's median over the plain forward's median, interleaved in one process
//            (profileRevision on CUDA; each run ends with one synchronisation, as the plain one);
//   PyTorch: the same file under torch.profiler.profile with CPU and CUDA activities over its own
//            plain forward, through the venv's Python (pytorch_profile_cuda.py).
// Also: the kernels per run each side saw, and the share of Graft's kernels given to a node.
// Target: <= 1.15x the plain forward.
// Usage: bench_profile_cuda TESTDATA_DIR [MODEL[@SHAPE] ...]   (default: resnet18, resnet50 at
// batch 1 and 32 and vit_b_16, NAME.pt with NAME.ref.json's input shape). Without CUDA it prints
// that it skipped and exits 0.
#include "core/io/load.h"
#include "core/profile/profiler.h"
#include "core/run/threads.h"

#include <torch/cuda.h>
#include <torch/script.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>

#include <cstdio>

using namespace graft::core;

namespace {

constexpr int kRuns = 30;
constexpr int kWarmup = 5;
constexpr double kTarget = 1.15;

QJsonObject readJson(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

QJsonObject pytorchProfile(const QString& model, const QString& shape) {
  const QString python = qEnvironmentVariable("GRAFT_PYTHON", QStringLiteral(GRAFT_SOURCE_DIR "/.venv/bin/python"));
  QProcess p;
  p.start(python, {QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/pytorch_profile_cuda.py"), model, shape,
                   QString::number(kRuns), QString::number(kWarmup)});
  if (!p.waitForFinished(600000) || p.exitCode() != 0) return {};
  return QJsonDocument::fromJson(p.readAllStandardOutput().trimmed().split('\n').last()).object();
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_profile_cuda TESTDATA_DIR [MODEL[@SHAPE] ...]\n");
    return 2;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (!torch::cuda::is_available()) {
    std::printf("bench_profile_cuda: CUDA is not available here: skipped\n");
    return 0;
  }
  const QString dir = QString::fromLocal8Bit(argv[1]);
  QStringList specs;
  for (int i = 2; i < argc; ++i) specs << QString::fromLocal8Bit(argv[i]);
  if (specs.isEmpty())
    specs = {QStringLiteral("resnet18"), QStringLiteral("resnet50"), QStringLiteral("resnet50@32x3x224x224"),
             QStringLiteral("vit_b_16")};
  std::printf("bench_profile_cuda: %d runs after %d warm-up on %s; ratios are to the plain forward\n", kRuns, kWarmup,
              "cuda");
  std::printf("%-26s %9s %9s %8s %6s %9s %7s | %9s %9s %8s %7s | %s\n", "model", "plain_ms", "graft_ms", "graft", "IQR",
              "kernel_ms", "k/run", "pt_plain", "pt_prof", "pytorch", "k/run", "verdict");
  int status = 0;
  for (const auto& spec : specs) {
    QString path = spec.section(QLatin1Char('@'), 0, 0);
    QString shapeText = spec.section(QLatin1Char('@'), 1);
    if (!QFileInfo(path).isFile()) path = dir + QLatin1Char('/') + path + QStringLiteral(".pt");
    if (shapeText.isEmpty()) {
      QStringList dims;
      const QString ref = path.left(path.lastIndexOf(QLatin1Char('.'))) + QStringLiteral(".ref.json");
      for (const auto& d : readJson(ref).value("input_shape").toArray()) dims << QString::number(d.toInt());
      shapeText = dims.join(QLatin1Char('x'));
    }
    auto loaded = io::loadFile(path);
    if (!loaded.ok() || shapeText.isEmpty()) {
      std::printf("%-26s skipped: %s\n", qPrintable(spec), loaded.ok() ? "no input shape" : qPrintable(loaded.error.headline));
      continue;
    }
    std::vector<int64_t> shape;
    for (const auto& d : shapeText.split(QLatin1Char('x'))) shape.push_back(d.toLongLong());
    profile::ProfileOptions options;
    options.runs = kRuns;
    options.warmup = kWarmup;
    options.recordShapes = false;
    options.device = QStringLiteral("cuda");
    at::manual_seed(0);
    const auto p = profile::profileRevision(*loaded.document->current(), {torch::randn(shape).cuda()}, options);
    const double graft = p.run.median / p.forward.median;
    const double noise = p.forward.iqr() / p.forward.median;
    const double kernelsPerRun = double(p.kernels.size()) / std::max<qsizetype>(1, p.runMs.size());
    const auto pt = pytorchProfile(path, shapeText);
    const double ptPlain = pt.value("plain_ms").toDouble(), ptProf = pt.value("profiled_ms").toDouble();
    const double pytorch = ptPlain > 0 ? ptProf / ptPlain : 0;
    const bool ok = graft <= kTarget && p.kernelsRecorded && !p.kernels.isEmpty();
    if (!ok) status = 1;
    const QString name = QFileInfo(path).completeBaseName() + QLatin1Char('@') + shapeText;
    std::printf("%-26s %9.3f %9.3f %7.3fx %5.1f%% %9.3f %7.1f | %9.3f %9.3f %7.3fx %7d | %s%s\n", qPrintable(name),
                p.forward.median, p.run.median, graft, 100 * noise, p.kernel.median, kernelsPerRun, ptPlain, ptProf,
                pytorch, pt.value("kernels_per_run").toInt(), ok ? "ok" : "ABOVE TARGET or no kernels",
                p.kernelNote.isEmpty() ? "" : qPrintable(QStringLiteral(" (") + p.kernelNote + QLatin1Char(')')));
    if (p.kernelsRecorded)
      std::printf("%-26s %d of %zu kernels launched outside any node\n", "", p.unattributedKernels, size_t(p.kernels.size()));
  }
  return status;
}
