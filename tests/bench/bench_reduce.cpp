// How many subgraph runs reduce needs against the size of the model: float16 chains of N ops
// (tests/bench/make_chain_models.py) whose rounding drifts out of tolerance, and the same chains
// with one overflowing exp. The bisection should stay near log2 of the candidates before the
// failing op; removal is one run per op of the window it found. Baseline: one plain run of the
// whole model at float16 (the unit the "runs" figure counts).
// Then reduce's peak resident memory on a deep CNN (resnet152 with random weights, whose float16
// run overflows in layer3: tests/bench/make_deep_cnn.py) against the peak of the model's own
// plain forward, each phase with its own high-water mark in this process. Target: a small
// constant factor (the reference values of one run are kept), whatever the depth.
// Usage: bench_reduce [OUT_DIR] [N ...]   (default /tmp/graft-chains, 250 500 1000 2000)
#include "core/io/load.h"
#include "core/io/input_set.h"
#include "core/io/input_specs.h"
#include "core/run/executor.h"
#include "core/run/reduce.h"
#include "tests/bench/resident_memory.h"

#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <chrono>
#include <cmath>
#include <cstdio>

using namespace graft::core;

namespace {

QString python() { return qEnvironmentVariable("GRAFT_PYTHON", QStringLiteral(GRAFT_SOURCE_DIR "/.venv/bin/python")); }

// reduce of `doc`'s float16 run against its float32 run at the default tolerance, timed.
struct TimedReduce {
  run::ReduceResult result;
  double seconds = 0;
};
TimedReduce reduceAtHalf(model::Document& doc, const model::InputSet& inputs) {
  run::CompareOptions o;
  o.precisionB.dtype = c10::kHalf;
  o.tol = run::defaultTolerance(o);
  const auto start = std::chrono::steady_clock::now();
  TimedReduce out{run::reduceFailure(doc.current(), inputs, o, doc.ids())};
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// Reduce's peak resident memory against the plain forward's on the deep CNN.
int deepCnn(const QString& dir) {
  if (QProcess::execute(python(), {QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/make_deep_cnn.py"), dir}) != 0) {
    std::printf("bench_reduce: could not make the deep CNN with %s\n", qPrintable(python()));
    return 1;
  }
  auto loaded = io::loadFile(dir + QStringLiteral("/resnet152.pt"));
  const auto inputs = io::parseInputs({dir + QStringLiteral("/resnet152.x.pt")}, 0);
  if (!loaded.ok() || !inputs.inputs) {
    std::printf("resnet152: %s\n", qPrintable(loaded.ok() ? inputs.error : loaded.error.message()));
    return 1;
  }
  auto& doc = *loaded.document;
  const double loadedMiB = graft::bench::rssMiB();
  const bool phases = graft::bench::resetPeakRss();
  run::Executor forward(doc.current());
  const auto plain = forward.run(*inputs.inputs, {});
  const double forwardPeak = graft::bench::peakRssMiB();
  if (!plain.ok) {
    std::printf("resnet152: the plain forward failed: %s\n", qPrintable(plain.error.headline()));
    return 1;
  }
  graft::bench::resetPeakRss();
  const auto [r, seconds] = reduceAtHalf(doc, *inputs.inputs);
  const double reducePeak = graft::bench::peakRssMiB();
  std::printf("\npeak resident, MiB  %6s %8s %10s %10s %7s %6s %9s  %s\n", "ops", "loaded", "forward", "reduce", "ratio", "runs",
              "reduce_s", "repro");
  const QString repro = r.ok ? doc.current()->modulePathOf(r.failing) + QStringLiteral(" (") + doc.current()->kindOf(r.failing) +
                                   QStringLiteral(", %1 node(s))").arg(r.nodes.size())
                             : r.error;
  std::printf("resnet152 1x3x64x64 %6zu %8.0f %10.0f %10.0f %6.2fx %6d %9.2f  %s\n", doc.current()->opNodeIds().size(), loadedMiB,
              forwardPeak, reducePeak, reducePeak / forwardPeak, r.runs, seconds, qPrintable(repro));
  if (!phases) std::printf("(the kernel refused to reset the high-water mark: reduce's peak includes the forward's)\n");
  return r.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("/tmp/graft-chains");
  QStringList sizes;
  for (int i = 2; i < argc; ++i) sizes << QString::fromLocal8Bit(argv[i]);
  if (sizes.isEmpty()) sizes = {QStringLiteral("250"), QStringLiteral("500"), QStringLiteral("1000"), QStringLiteral("2000")};
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (QProcess::execute(python(), QStringList{QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/make_chain_models.py"), dir} + sizes) != 0) {
    std::printf("bench_reduce: could not make the chain models with %s\n", qPrintable(python()));
    return 1;
  }
  const auto inputs = io::parseInputs({dir + QStringLiteral("/chain.x.pt")}, 0);
  if (!inputs.inputs) return 1;
  std::printf("%-16s %6s %10s %9s %8s %8s %6s %6s %9s %9s\n", "model", "ops", "candidates", "bisection", "log2(c)",
              "removal", "nodes", "runs", "reduce_s", "runs/op");
  for (const QString& n : sizes) {
    for (const QString& kind : {QStringLiteral("chain_"), QStringLiteral("chain_exp_")}) {
      auto loaded = io::loadFile(dir + QLatin1Char('/') + kind + n + QStringLiteral(".pt"));
      if (!loaded.ok()) {
        std::printf("%s%s: %s\n", qPrintable(kind), qPrintable(n), qPrintable(loaded.error.message()));
        continue;
      }
      auto& doc = *loaded.document;
      const auto [r, seconds] = reduceAtHalf(doc, *inputs.inputs);
      const int ops = int(doc.current()->opNodeIds().size());
      if (!r.ok) {
        std::printf("%-16s %6d  %s\n", qPrintable(kind + n), ops, qPrintable(r.error));
        continue;
      }
      std::printf("%-16s %6d %10d %9d %8.1f %8d %6zu %6d %9.2f %9.3f\n", qPrintable(kind + n), ops, r.candidateNodes,
                  r.bisectionRuns, std::log2(std::max(1, r.candidateNodes)), r.removalRuns, r.nodes.size(), r.runs, seconds,
                  double(r.runs) / ops);
    }
  }
  return deepCnn(dir + QStringLiteral("/deep"));
}
