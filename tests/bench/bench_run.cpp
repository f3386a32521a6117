// Instrumented (node-by-node) run time against libtorch's own forward on the same revision and
// inputs, and the memory a per-node compare holds. Usage: bench_run [TESTDATA] [RUNS]
// [MODEL] (models: resnet50.pt, vit_b_16.pt from tests/python/make_models.py).
#include "core/io/load.h"
#include "core/run/compare.h"
#include "core/run/threads.h"

#include <ATen/Parallel.h>
#include <torch/script.h>

#include <QtCore/QFile>
#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace graft::core;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Peak resident set size so far, from /proc/self/status (kB).
long vmHwmKb() {
  QFile f(QStringLiteral("/proc/self/status"));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmHWM:")) return line.mid(6).trimmed().split(' ').front().toLong();
  return -1;
}

double bytesOf(const std::vector<c10::IValue>& values) {
  double total = 0;
  for (const auto& t : run::flattenTensors(values))
    if (t.defined()) total += double(t.numel()) * t.element_size();  // None outputs are undefined
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  const QString dir = argc > 1 ? QString::fromLocal8Bit(argv[1]) : qEnvironmentVariable("GRAFT_TESTDATA", QStringLiteral("testdata"));
  const int runs = argc > 2 ? std::atoi(argv[2]) : 10;
  const int threads = graft::core::run::useThreads(1);  // steadier figures on a shared machine
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("bench_run: %d timed runs per path (interleaved), %d thread(s), input 1x3x224x224\n", runs, threads);
  const QString only = argc > 3 ? QString::fromLocal8Bit(argv[3]) : QString();
  for (const char* name : {"resnet50", "vit_b_16"}) {
    if (!only.isEmpty() && only != QLatin1String(name)) continue;
    const QString path = dir + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".pt");
    auto loaded = io::loadFile(path);
    if (!loaded.ok()) {
      std::printf("%s: skipped (%s)\n", name, qPrintable(loaded.error.headline));
      continue;
    }
    auto rev = loaded.document->current();
    auto in = *run::parseInputs({QStringLiteral("1x3x224x224")}, 0).inputs;
    run::Executor ex(rev);
    run::RunOptions fast, walk;
    walk.instrumented = true;
    for (int i = 0; i < 2; ++i) { ex.run(in, fast); ex.run(in, walk); }  // warm-up
    std::vector<double> tf, tw;
    for (int i = 0; i < runs; ++i) {
      auto a = ex.run(in, fast);
      auto b = ex.run(in, walk);
      if (!a.ok || !b.ok) { std::printf("%s: run failed: %s\n", name, qPrintable((a.ok ? b : a).error.headline())); return 1; }
      tf.push_back(a.totalMs);
      tw.push_back(b.totalMs);
    }
    const double mf = median(tf), mw = median(tw);
    std::printf("%-9s fast %8.2f ms  instrumented %8.2f ms  ratio %.3fx (target <= 1.10x)\n", name, mf, mw, mw / mf);

    const long before = vmHwmKb();
    run::CompareOptions o;
    o.perNode = true;
    o.matching = run::NodeMatching::ByProvenance;
    const auto cmpStart = std::chrono::steady_clock::now();
    auto cmp = run::compareRevisions(rev, rev, in, o);
    const double cmpMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cmpStart).count();
    const long after = vmHwmKb();
    double retained = 0;
    for (const auto& n : cmp.runA->nodes) retained += bytesOf(n.outputs);
    for (const auto& n : cmp.runB->nodes) retained += bytesOf(n.outputs);
    std::printf("%-9s per-node compare: %zu nodes, %.0f ms (%.1fx a fast run), retained intermediates %.1f MiB, "
                "VmHWM %ld -> %ld MiB (+%ld), equal=%d\n",
                name, cmp.nodes ? cmp.nodes->nodes.size() : 0, cmpMs, cmpMs / mf, retained / (1 << 20),
                before / 1024, after / 1024, (after - before) / 1024, int(cmp.equal));
  }
  return 0;
}
