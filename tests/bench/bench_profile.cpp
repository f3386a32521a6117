// Profiling overhead, as ratios to the plain forward measured in the same run:
//   Graft:   the profiled run's median over the plain forward's median, measured interleaved in
//            one process (profileRevision);
//   PyTorch: the same file under torch.profiler.profile (CPU activity, record_shapes=False) over
//            its own plain forward, through the venv's Python (pytorch_profile.py).
// Targets: <= 1.10x on resnet18/resnet50/vit_b_16, <= 1.5x on the tiny-op models, and Graft's
// ratio not above PyTorch's (within the run-to-run noise printed beside it).
// Usage: bench_profile TESTDATA_DIR [model ...]   (NAME.pt and NAME.ref.json from
// tests/python/make_models.py; default: the six models of the table)
#include "core/io/load.h"
#include "core/profile/profiler.h"
#include "core/run/threads.h"

#include <torch/script.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>

#include <cstdio>

using namespace graft::core;

namespace {

constexpr int kRuns = 30;
constexpr int kWarmup = 5;

QJsonObject readJson(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

// PyTorch's profiler on the same file: {plain_ms, profiled_ms} or empty when it failed.
QJsonObject pytorchProfile(const QString& model, const QString& shape) {
  const QString python = qEnvironmentVariable("GRAFT_PYTHON", QStringLiteral(GRAFT_SOURCE_DIR "/.venv/bin/python"));
  QProcess p;
  p.start(python, {QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/pytorch_profile.py"), model, shape,
                   QString::number(kRuns), QString::number(kWarmup)});
  if (!p.waitForFinished(600000) || p.exitCode() != 0) return {};
  return QJsonDocument::fromJson(p.readAllStandardOutput().trimmed().split('\n').last()).object();
}

double targetFor(const QString& name) {
  return name == QLatin1String("transformer_encoder") || name == QLatin1String("lstm") ? 1.5 : 1.10;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_profile TESTDATA_DIR [model ...]\n");
    return 2;
  }
  const QString dir = QString::fromLocal8Bit(argv[1]);
  QStringList models;
  for (int i = 2; i < argc; ++i) models << QString::fromLocal8Bit(argv[i]);
  if (models.isEmpty())
    models = {QStringLiteral("resnet18"), QStringLiteral("resnet18_scripted"), QStringLiteral("resnet50"),
              QStringLiteral("vit_b_16"), QStringLiteral("transformer_encoder"), QStringLiteral("lstm")};
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("bench_profile: %d runs after %d warm-up, %d intra-op threads; ratios are to the plain forward\n", kRuns,
              kWarmup, run::currentThreads());
  std::printf("%-20s %10s %10s %8s %7s | %10s %10s %8s | %-8s %s\n", "model", "plain_ms", "graft_ms", "graft", "IQR",
              "pt_plain", "pt_prof", "pytorch", "target", "verdict");
  int status = 0;
  for (const auto& name : models) {
    const QString path = dir + QLatin1Char('/') + name + QStringLiteral(".pt");
    auto loaded = io::loadFile(path);
    if (!loaded.ok()) {
      std::printf("%-20s skipped: %s\n", qPrintable(name), qPrintable(loaded.error.headline));
      continue;
    }
    QStringList dims;
    for (const auto& d : readJson(dir + QLatin1Char('/') + name + QStringLiteral(".ref.json")).value("input_shape").toArray())
      dims << QString::number(d.toInt());
    std::vector<int64_t> shape;
    for (const auto& d : dims) shape.push_back(d.toLongLong());
    profile::ProfileOptions options;
    options.runs = kRuns;
    options.warmup = kWarmup;
    options.recordShapes = false;
    at::manual_seed(0);
    const auto p = profile::profileRevision(*loaded.document->current(), {torch::randn(shape)}, options);
    const double graft = p.run.median / p.forward.median;
    // The spread of the plain forward itself, as a fraction: the noise any ratio carries here.
    const double noise = p.forward.iqr() / p.forward.median;
    const auto pt = pytorchProfile(path, dims.join(QLatin1Char('x')));
    const double ptPlain = pt.value("plain_ms").toDouble(), ptProf = pt.value("profiled_ms").toDouble();
    const double pytorch = ptPlain > 0 ? ptProf / ptPlain : 0;
    const double target = targetFor(name);
    const bool withinTarget = graft <= target;
    const bool notAbovePyTorch = pytorch == 0 || graft <= pytorch + noise;
    if (!withinTarget || !notAbovePyTorch) status = 1;
    std::printf("%-20s %10.3f %10.3f %7.3fx %6.1f%% | %10.3f %10.3f %7.3fx | <=%.2fx  %s%s\n", qPrintable(name),
                p.forward.median, p.run.median, graft, 100 * noise, ptPlain, ptProf, pytorch, target,
                withinTarget ? "ok" : "ABOVE TARGET", notAbovePyTorch ? "" : ", above PyTorch's");
  }
  return status;
}
