// Instrumented (node-by-node) run time against libtorch's own forward on the same revision and
// inputs, and the memory a per-node compare holds; then speed parity: Graft's plain forward
// (Executor::run's fast path, timed around the whole call) against stock PyTorch's forward of the
// same file (pytorch_forward.py through the venv's Python: torch.jit.load for a .pt, the stated
// target, beside torch.jit.freeze of it; torch.export.load(p).module() for a .pt2), one
// intra-op thread, no grad, PyTorch's and Graft's calls alternating. Target <= 1.05x.
// Usage: bench_run [TESTDATA] [RUNS] [MODEL] (models: resnet50.pt, vit_b_16.pt from
// tests/python/make_models.py; TESTDATA/bench/NAME.pt2 from export_programs.py, made when missing).
#include "core/io/input_set.h"
#include "core/io/load.h"
#include "core/run/compare.h"
#include "core/run/threads.h"
#include "median_timing.h"

#include <ATen/Parallel.h>
#include <torch/script.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

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

constexpr double kParityTarget = 1.05;
constexpr int kParityWarmup = 2;

QString python() { return qEnvironmentVariable("GRAFT_PYTHON", QStringLiteral(GRAFT_SOURCE_DIR "/.venv/bin/python")); }

// TESTDATA/bench/NAME.pt2, exported by export_programs.py unless it exists.
bool ensurePrograms(const QString& dir) {
  QProcess p;
  p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
  p.start(python(), {QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/export_programs.py"), dir});
  return p.waitForFinished(1800000) && p.exitCode() == 0;
}

// PyTorch's forward of one file in a child process that keeps the models loaded: block(n) times n
// calls per mode ("jit", "frozen" or "export") and appends them to times.
class PyTorchForward {
 public:
  explicit PyTorchForward(const QString& path) {
    p_.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p_.start(python(), {QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/pytorch_forward.py"), path,
                        QStringLiteral("1x3x224x224"), QString::number(kParityWarmup)});
  }
  ~PyTorchForward() {
    p_.closeWriteChannel();
    if (!p_.waitForFinished(60000)) p_.kill();
  }
  bool block(int runs) {
    p_.write(QByteArray::number(runs) + '\n');
    while (!p_.canReadLine())
      if (!p_.waitForReadyRead(1800000)) return false;
    const QJsonObject o = QJsonDocument::fromJson(p_.readLine().trimmed()).object();
    for (const QString& mode : {QStringLiteral("jit"), QStringLiteral("frozen"), QStringLiteral("export")})
      for (const auto& v : o.value(mode).toArray()) times[mode].push_back(v.toDouble());
    return !o.isEmpty();
  }
  std::map<QString, std::vector<double>> times;

 private:
  QProcess p_;
};

// Graft's plain forward against PyTorch's on one file; false when it ran above the target.
bool speedParity(const QString& name, const QString& path, int runs) {
  auto loaded = io::loadFile(path);
  if (!loaded.ok()) {
    std::printf("%-9s %-4s skipped (%s)\n", qPrintable(name), path.endsWith(QLatin1String(".pt2")) ? "pt2" : "pt",
                qPrintable(loaded.error.headline));
    return true;
  }
  auto in = *io::parseInputs({QStringLiteral("1x3x224x224")}, 0).inputs;
  run::Executor ex(loaded.document->current());
  const run::RunOptions fast;
  std::vector<double> graft, inside;
  PyTorchForward pytorch(path);
  for (int i = 0; i < kParityWarmup; ++i) ex.run(in, fast);
  for (int round = 0; round < runs; ++round) {
    if (!pytorch.block(1)) {
      std::printf("%-9s PyTorch's forward failed (%s)\n", qPrintable(name), qPrintable(path));
      return false;
    }
    const auto t0 = graft::bench::Clock::now();
    const auto r = ex.run(in, fast);
    graft.push_back(graft::bench::msSince(t0));
    if (!r.ok) {
      std::printf("%-9s run failed: %s\n", qPrintable(name), qPrintable(r.error.headline()));
      return false;
    }
    inside.push_back(r.totalMs);  // the forward alone, without the per-run checks and input copies
  }
  const bool pt2 = path.endsWith(QLatin1String(".pt2"));
  const double g = median(graft), ref = median(pytorch.times[pt2 ? QStringLiteral("export") : QStringLiteral("jit")]);
  const bool ok = ref > 0 && g / ref <= kParityTarget;
  std::printf("%-9s %-4s graft %8.2f ms (forward %8.2f) | %-22s %8.2f ms | ratio %.3fx (target <= %.2fx) %s",
              qPrintable(name), pt2 ? "pt2" : "pt", g, median(inside),
              pt2 ? "export.load().module()" : "jit.load", ref, g / ref, kParityTarget, ok ? "ok" : "ABOVE TARGET");
  if (!pt2) {
    const double frozen = median(pytorch.times[QStringLiteral("frozen")]);
    std::printf(" | jit.freeze %8.2f ms, ratio %.3fx", frozen, g / frozen);
  }
  std::printf("\n");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
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
    auto in = *io::parseInputs({QStringLiteral("1x3x224x224")}, 0).inputs;
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

  std::printf("speed parity: plain forward, median of %d runs per side, PyTorch's and Graft's calls alternating, "
              "%d thread(s)\n", runs, threads);
  const QString programs = dir + QStringLiteral("/bench");
  if (!ensurePrograms(programs)) std::printf("export_programs.py failed: the .pt2 rows are skipped\n");
  int status = 0;
  for (const char* name : {"resnet50", "vit_b_16"}) {
    if (!only.isEmpty() && only != QLatin1String(name)) continue;
    const QString n = QLatin1String(name);
    if (!speedParity(n, dir + QLatin1Char('/') + n + QStringLiteral(".pt"), runs)) status = 1;
    if (!speedParity(n, programs + QLatin1Char('/') + n + QStringLiteral(".pt2"), runs)) status = 1;
  }
  return status;
}
