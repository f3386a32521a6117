// Memory recording, as ratios and against PyTorch's own figures:
//   overhead: Graft's memory-recording run (profile::recordMemory: node by node, c10's allocator
//             reports counted per node) over Graft's plain forward (the module's own forward),
//             interleaved in one process; beside it PyTorch's torch.profiler with
//             profile_memory=True over its own plain forward (pytorch_memory.py);
//   peak:     resnet50's peak allocated bytes before and after fold-conv-bn, Graft's against
//             torch.profiler's on the same files (the folded revision saved for PyTorch to load).
// Target: Graft's overhead <= 1.15x.
// Usage: bench_memory TESTDATA_DIR   (resnet50.pt from make_models.py, zoo/bert.pt from make_zoo.py)
#include "core/io/load.h"
#include "core/io/save.h"
#include "core/profile/memory_recorder.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "core/run/device_forward.h"
#include "core/run/executor.h"
#include "core/io/input_set.h"
#include "core/run/input_values.h"
#include "core/run/threads.h"
#include "median_timing.h"

#include <torch/script.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>

#include <cstdio>

using namespace graft::core;

namespace {

constexpr int kRuns = 20;
constexpr int kWarmup = 3;
constexpr double kTarget = 1.15;

// PyTorch's profiler on the same file: {plain_ms, profiled_ms, peak_bytes} or empty when it failed.
QJsonObject pytorchMemory(const QString& model, const QString& input, int runs) {
  const QString python = qEnvironmentVariable("GRAFT_PYTHON", QStringLiteral(GRAFT_SOURCE_DIR "/.venv/bin/python"));
  QProcess p;
  p.start(python, {QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/pytorch_memory.py"), model, input, QString::number(runs),
                   QString::number(kWarmup)});
  if (!p.waitForFinished(600000) || p.exitCode() != 0) return {};
  return QJsonDocument::fromJson(p.readAllStandardOutput().trimmed().split('\n').last()).object();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Overhead {
  double plainMs = 0, recordingMs = 0;
  qint64 peakBytes = 0;
};

// The plain forward and the memory-recording run, alternating, on the same inputs.
Overhead measure(const model::Revision& revision, const std::vector<c10::IValue>& inputs) {
  torch::NoGradGuard noGrad;
  run::GraphAsWritten asWritten;
  run::DeviceForward forward(revision, c10::Device(c10::kCPU));
  for (int i = 0; i < kWarmup; ++i) forward(inputs);
  std::vector<double> plain, recording;
  Overhead out;
  for (int i = 0; i < kRuns; ++i) {
    const auto t0 = graft::bench::Clock::now();
    forward(inputs);
    plain.push_back(graft::bench::msSince(t0));
    const auto record = profile::recordMemory(revision, inputs, c10::Device(c10::kCPU));
    recording.push_back(record.runMs);
    out.peakBytes = record.peakBytes;
  }
  out.plainMs = median(plain);
  out.recordingMs = median(recording);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_memory TESTDATA_DIR\n");
    return 2;
  }
  const QString dir = QString::fromLocal8Bit(argv[1]);
  run::ensureThreads();
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("bench_memory: %d runs after %d warm-up, %d intra-op threads; ratios are to the plain forward\n", kRuns,
              kWarmup, run::currentThreads());
  std::printf("%-10s %10s %10s %8s | %10s %10s %8s | %-8s %s\n", "model", "plain_ms", "graft_ms", "graft", "pt_plain",
              "pt_memory", "pytorch", "target", "verdict");
  struct Model {
    QString name, file, input;
  };
  const QList<Model> models{{"resnet50", "resnet50.pt", "1x3x224x224"},
                            {"bert", "zoo/bert.pt", dir + QStringLiteral("/zoo/bert.inputs.pt")}};
  int status = 0;
  QTemporaryDir tmp;
  QString peaks;
  for (const auto& m : models) {
    const QString path = dir + QLatin1Char('/') + m.file;
    auto loaded = io::loadFile(path);
    const auto parsed = io::parseInputs({m.input}, 0);
    if (!loaded.ok() || !parsed.inputs) {
      std::printf("%-10s skipped: %s\n", qPrintable(m.name), qPrintable(loaded.ok() ? parsed.error : loaded.error.headline));
      continue;
    }
    const auto& inputs = parsed.inputs->values;
    const Overhead g = measure(*loaded.document->current(), inputs);
    const auto pt = pytorchMemory(path, m.input, kRuns);
    const double ptPlain = pt.value("plain_ms").toDouble(), ptMemory = pt.value("profiled_ms").toDouble();
    const double graft = g.recordingMs / g.plainMs;
    const bool ok = graft <= kTarget;
    if (!ok) status = 1;
    std::printf("%-10s %10.3f %10.3f %7.3fx | %10.3f %10.3f %7.3fx | <=%.2fx  %s\n", qPrintable(m.name), g.plainMs,
                g.recordingMs, graft, ptPlain, ptMemory, ptPlain > 0 ? ptMemory / ptPlain : 0.0, kTarget,
                ok ? "ok" : "ABOVE TARGET");
    if (m.name != QLatin1String("resnet50")) continue;

    // Peak before and after fold-conv-bn, each against torch.profiler's on the same file.
    auto& doc = *loaded.document;
    const auto library = rewrite::RuleLibrary::load();
    const auto* rule = library.find(QStringLiteral("fold-conv-bn"));
    auto folded = rule ? rewrite::applySteps(*doc.current(), {rewrite::Step::ofRule(*rule)}, doc.ids()) : rewrite::ApplyResult{};
    const QString foldedPath = tmp.filePath(QStringLiteral("resnet50_folded.pt"));
    if (!folded.ok() || !io::saveRevision(*folded.revision, foldedPath).ok) {
      peaks = QStringLiteral("peak after fold-conv-bn skipped: %1\n").arg(folded.error);
      continue;
    }
    const qint64 after = profile::recordMemory(*folded.revision, inputs, c10::Device(c10::kCPU)).peakBytes;
    const auto ptAfter = pytorchMemory(foldedPath, m.input, 5);
    const double ptBefore = pt.value("peak_bytes").toDouble(), ptFolded = ptAfter.value("peak_bytes").toDouble();
    peaks = QString::asprintf("\npeak allocated, MiB        %10s %10s %8s\n", "graft", "pytorch", "ratio") +
            QString::asprintf("resnet50                   %10.2f %10.2f %7.3fx\n", g.peakBytes / 1048576.0,
                              ptBefore / 1048576.0, ptBefore > 0 ? g.peakBytes / ptBefore : 0.0) +
            QString::asprintf("resnet50 + fold-conv-bn    %10.2f %10.2f %7.3fx\n", after / 1048576.0,
                              ptFolded / 1048576.0, ptFolded > 0 ? after / ptFolded : 0.0);
  }
  std::printf("%s", qPrintable(peaks));  // after the overhead table
  return status;
}
