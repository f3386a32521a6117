// How many subgraph runs reduce needs against the size of the model: float16 chains of N ops
// (tests/bench/make_chain_models.py) whose rounding drifts out of tolerance, and the same chains
// with one overflowing exp. The bisection should stay near log2 of the candidates before the
// failing op; removal is one run per op of the window it found. Baseline: one plain run of the
// whole model at float16 (the unit the "runs" figure counts).
// Usage: bench_reduce [OUT_DIR] [N ...]   (default /tmp/graft-chains, 250 500 1000 2000)
#include "core/io/load.h"
#include "core/run/input_specs.h"
#include "core/run/reduce.h"

#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <chrono>
#include <cmath>
#include <cstdio>

using namespace graft::core;

int main(int argc, char** argv) {
  const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("/tmp/graft-chains");
  QStringList sizes;
  for (int i = 2; i < argc; ++i) sizes << QString::fromLocal8Bit(argv[i]);
  if (sizes.isEmpty()) sizes = {QStringLiteral("250"), QStringLiteral("500"), QStringLiteral("1000"), QStringLiteral("2000")};
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const QString python = qEnvironmentVariable("GRAFT_PYTHON", QStringLiteral(GRAFT_SOURCE_DIR "/.venv/bin/python"));
  if (QProcess::execute(python, QStringList{QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/make_chain_models.py"), dir} + sizes) != 0) {
    std::printf("bench_reduce: could not make the chain models with %s\n", qPrintable(python));
    return 1;
  }
  const auto inputs = run::parseInputs({dir + QStringLiteral("/chain.x.pt")}, 0);
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
      run::CompareOptions o;
      o.precisionB.dtype = c10::kHalf;
      o.tol = run::defaultTolerance(o);
      const auto start = std::chrono::steady_clock::now();
      const auto r = run::reduceFailure(doc.current(), *inputs.inputs, o, doc.ids());
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  return 0;
}
