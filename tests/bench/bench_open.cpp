// Opening a large torch.export program: a GPT-2-architecture model of about 350 M parameters
// (24 layers, width 1024, random weights; tests/bench/make_gpt2_program.py exports it once).
// Prints, against baselines measured in the same run:
//   - Graft's time from nothing to a laid-out graph (load, view, layout of the collapsed
//     hierarchy) over the time stock torch.export.load takes on the same file (goal <= 0.5);
//   - resident memory added by opening it, before any run, over the weight bytes (goal < 0.25:
//     weights are read lazily, from the mapped archive).
//   bench_open [PROGRAM.pt2]   (default $GRAFT_TESTDATA/bench/gpt2_350m.pt2, made when missing)
// The Python interpreter is $GRAFT_PYTHON or .venv/bin/python.
#include "core/io/load.h"
#include "core/layout/layout_engine.h"
#include "core/model/graph_view.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <cstdio>

using namespace graft::core;

namespace {

double rssMiB() {
  QFile f(QStringLiteral("/proc/self/status"));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').front().toDouble() / 1024.0;
  return -1;
}

// Runs the helper script; its stdout, or an empty array after printing why.
QByteArray python(const QStringList& args) {
  const QString py = qEnvironmentVariable("GRAFT_PYTHON", QStringLiteral(GRAFT_SOURCE_DIR "/.venv/bin/python"));
  QProcess p;
  p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
  p.start(py, QStringList{QStringLiteral(GRAFT_SOURCE_DIR "/tests/bench/make_gpt2_program.py")} + args);
  if (!p.waitForFinished(1800000) || p.exitCode() != 0) {
    std::fprintf(stderr, "bench_open: %s %s failed\n", qPrintable(py), qPrintable(args.join(QLatin1Char(' '))));
    return {};
  }
  return p.readAllStandardOutput();
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const QString root = qEnvironmentVariable("GRAFT_TESTDATA", QStringLiteral("build/release/testdata"));
  const QString path = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QDir(root).filePath(QStringLiteral("bench/gpt2_350m.pt2"));
  QDir().mkpath(QFileInfo(path).absolutePath());
  if (!QFileInfo::exists(path)) {
    std::printf("exporting %s (once)…\n", qPrintable(path));
    std::fflush(stdout);
    python({QStringLiteral("make"), path});
  }
  const auto reference = QJsonDocument::fromJson(python({QStringLiteral("load"), path})).object();
  if (reference.isEmpty()) return 1;
  const double torchLoad = reference.value(QStringLiteral("load_s")).toDouble();
  const double weightMiB = reference.value(QStringLiteral("weight_bytes")).toDouble() / (1024.0 * 1024.0);

  const double rssBefore = rssMiB();
  QElapsedTimer timer;
  timer.start();
  auto loaded = io::loadFile(path);
  if (!loaded.ok()) {
    std::fprintf(stderr, "bench_open: %s\n", qPrintable(loaded.error.message()));
    return 1;
  }
  const double loadS = timer.nsecsElapsed() / 1e9;
  auto view = std::make_shared<const model::GraphView>(model::GraphView::build(*loaded.document->current()));
  const double viewS = timer.nsecsElapsed() / 1e9 - loadS;
  layout::LayoutEngine engine;
  engine.setView(view);
  const auto diagram = engine.layout(engine.expandToDepth(0));  // what the canvas first shows
  const double totalS = timer.nsecsElapsed() / 1e9;
  const double rssAfter = rssMiB();

  std::printf("%s: %d ops, %lld groups, weights %.0f MiB\n", qPrintable(QFileInfo(path).fileName()), view->opCount(),
              qlonglong(view->groups.size()), weightMiB);
  std::printf("open to laid-out graph: %.2f s (load %.2f, view %.2f, layout %.2f) | torch.export.load %.2f s | "
              "ratio %.3f (goal <= 0.5)\n",
              totalS, loadS, viewS, totalS - loadS - viewS, torchLoad, totalS / torchLoad);
  std::printf("resident memory added by opening: %.1f MiB | weights %.0f MiB | ratio %.3f (goal < 0.25)\n", rssAfter - rssBefore,
              weightMiB, (rssAfter - rssBefore) / weightMiB);
  return diagram.groups.isEmpty() ? 1 : 0;
}
