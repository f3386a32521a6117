// A remote compare's time beside the local one, on a throwaway sshd on 127.0.0.1
// (tests/loopback_sshd.h; the "remote" Python is the venv's), in one process as the window and
// one graft-cli run use it: per model, compare A against itself with B on this machine, then with
// B on ssh://graft-test/cpu cold (a new agent; the host's model cache emptied, so the model goes
// up) and warm (the same agent again, the model loaded in it: core/remote/agent_pool.h). Prints
// median wall times of each, the bytes and round trips, judged by the rounding model (as users
// run it) and elementwise (no float64 reference on either side), and ends with the median over
// the models of warm remote over local. On a loopback host the warm ratio is the cost of the connection itself
// (framing, sending inputs and receiving outputs, one more process on the same cores).
// Usage: bench_remote TESTDATA_DIR [MODEL.pt2 ...]   (default: pt2/resnet18.pt2 pt2/bert.pt2)
#include "core/io/input_set.h"
#include "core/io/load.h"
#include "core/remote/agent_pool.h"
#include "core/remote/remote_compare.h"
#include "core/run/compare.h"
#include "core/run/threads.h"
#include "tests/loopback_sshd.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace graft::core;

namespace {

constexpr int kThreads = 2;
constexpr int kRepeats = 5;  // local and warm rows: the median of this many

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Seconds `job` took; false from `job` ends the bench's row.
double timed(const std::function<bool()>& job, bool* ok) {
  QElapsedTimer clock;
  clock.start();
  *ok = job() && *ok;
  return clock.elapsed() / 1000.0;
}

QString bytes(double n) {
  if (n >= 1e6) return QStringLiteral("%1 MB").arg(n / 1e6, 0, 'f', 1);
  if (n >= 1e3) return QStringLiteral("%1 KB").arg(n / 1e3, 0, 'f', 1);
  return QStringLiteral("%1 B").arg(n);
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (qEnvironmentVariableIsEmpty("GRAFT_SOURCE_DIR")) qputenv("GRAFT_SOURCE_DIR", GRAFT_SOURCE_DIR);
  const QStringList args = app.arguments().mid(1);
  if (args.isEmpty()) {
    std::printf("usage: bench_remote TESTDATA_DIR [MODEL.pt2 ...]\n");
    return 2;
  }
  if (const QString why = graft::test::LoopbackSshd::unavailable(); !why.isEmpty()) {
    std::printf("bench_remote: skipped: %s\n", qPrintable(why));
    return 0;
  }
  graft::test::LoopbackSshd sshd;
  QString why;
  if (!sshd.start(&why)) {
    std::printf("bench_remote: sshd did not start: %s\n", qPrintable(why));
    return 1;
  }
  run::useThreads(kThreads);
  QStringList models = args.mid(1);
  if (models.isEmpty()) models = {QStringLiteral("pt2/resnet18.pt2"), QStringLiteral("pt2/bert.pt2")};
  const auto host =
      remote::parseRemoteDevice(QStringLiteral("ssh://graft-test/cpu?python=") + graft::test::venvPython(), &why);
  auto& pool = remote::sharedAgentPool();
  std::printf("%-20s %-11s %8s %8s %8s %7s %11s %11s %6s\n", "model", "judged", "local s", "cold s", "warm s",
              "warm/l", "sent cold", "sent warm", "trips");
  std::vector<double> ratios[2];
  int failures = 0;
  for (const QString& name : models)
  for (const bool elementwise : {false, true}) {
    auto loaded = io::loadFile(args[0] + QLatin1Char('/') + name);
    if (!loaded.ok()) {
      std::printf("%-20s cannot load\n", qPrintable(name));
      ++failures;
      continue;
    }
    const model::Document& doc = *loaded.document;
    const auto inputs = io::inputsFor(doc, {}, 0).inputs;
    run::CompareOptions options;
    run::pairDocuments(doc, *doc.current(), doc, *doc.current(), options);
    // Judged elementwise, neither side runs the float64 reference: what is left is the host's run
    // and the transfer. By the rounding model (as users run it), a B that is not bit-identical (the
    // host's PyTorch against Graft's run here) adds the reference run to the remote side.
    options.tol.elementwise = elementwise;
    bool ok = inputs.has_value();
    bool localEqual = false;
    std::vector<double> local, warm;
    const auto here = [&] {
      const auto r = run::compareRevisions(doc.current(), doc.current(), *inputs, options);
      localEqual = r.equal;
      return r.ok;
    };
    if (ok) local.push_back(timed(here, &ok));
    remote::RemoteCompareResult last;
    const auto onHost = [&] {
      last = remote::compareWithRemoteB(doc.current(), doc, doc.current(), *inputs, options, *host, kThreads, {});
      if (!last.compare.ok) std::printf("  %s\n", qPrintable(last.compare.error));
      return last.compare.ok && last.compare.equal == localEqual;
    };
    pool.clear();
    QDir(sshd.folder() + QStringLiteral("/cache/graft/models")).removeRecursively();
    const char* judged = elementwise ? "elementwise" : "rounding";
    const double cold = ok ? timed(onHost, &ok) : 0;
    const qint64 sentCold = last.traffic.bytesSent;
    // Local and warm in turn, so both meet the same load on a shared machine.
    for (int i = 0; ok && i < kRepeats; ++i) {
      warm.push_back(timed(onHost, &ok));
      if (i > 0) local.push_back(timed(here, &ok));
    }
    if (!ok) {
      std::printf("%-20s %-11s failed (or the verdicts differ)\n", qPrintable(name), judged);
      ++failures;
      continue;
    }
    const double ratio = median(warm) / median(local);
    ratios[elementwise].push_back(ratio);
    std::printf("%-20s %-11s %8.2f %8.2f %8.2f %6.2fx %11s %11s %6d\n", qPrintable(name), judged, median(local), cold,
                median(warm), ratio, qPrintable(bytes(sentCold)), qPrintable(bytes(last.traffic.bytesSent)),
                last.traffic.roundTrips);
  }
  pool.clear();
  std::printf("(local, warm: median of %d, in turn; cold: a new agent, the model sent; trips: a warm run's round trips)\n",
              kRepeats);
  if (!ratios[1].empty()) std::printf("warm remote / local, judged elementwise: %.2fx\n", median(ratios[1]));
  if (!ratios[0].empty()) std::printf("warm remote / local: %.2fx\n", median(ratios[0]));
  return failures == 0 ? 0 : 1;
}
