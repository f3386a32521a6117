// Profiling overhead: the profiled run's median over the plain forward's median, measured
// interleaved in the same process (target <= 1.15x on resnet50).
// Usage: bench_profile TESTDATA_DIR [model ...]   (models as NAME.pt made by tests/python/make_models.py)
#include "core/io/load.h"
#include "core/profile/profiler.h"

#include <torch/script.h>

#include <cstdio>

using namespace graft::core;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_profile TESTDATA_DIR [model ...]\n");
    return 2;
  }
  const QString dir = QString::fromLocal8Bit(argv[1]);
  QStringList models;
  for (int i = 2; i < argc; ++i) models << QString::fromLocal8Bit(argv[i]);
  if (models.isEmpty()) models = {QStringLiteral("resnet18"), QStringLiteral("resnet50")};
  std::printf("%-14s %6s %12s %12s %9s %9s\n", "model", "runs", "profiled_ms", "forward_ms", "overhead", "target");
  int status = 0;
  for (const auto& name : models) {
    auto loaded = io::loadFile(dir + QLatin1Char('/') + name + QStringLiteral(".pt"));
    if (!loaded.ok()) {
      std::printf("%-14s skipped: %s\n", qPrintable(name), qPrintable(loaded.error.headline));
      continue;
    }
    profile::ProfileOptions options;
    options.runs = 30;
    options.warmup = 5;
    at::manual_seed(0);
    const auto p = profile::profileRevision(*loaded.document->current(), {torch::randn({1, 3, 224, 224})}, options);
    const double overhead = p.run.median / p.forward.median;
    std::printf("%-14s %6d %12.3f %12.3f %8.3fx %8s\n", qPrintable(name), int(p.runMs.size()), p.run.median,
                p.forward.median, overhead, overhead <= 1.15 ? "<=1.15 ok" : "> 1.15");
    if (overhead > 1.15) status = 1;
  }
  return status;
}
