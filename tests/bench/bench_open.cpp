// Opening large torch.export programs, against baselines measured in the same run:
//   - weights: a GPT-2-architecture model of about 350 M parameters (24 layers, width 1024, random
//     weights; make_gpt2_program.py make): Graft's time from nothing to a laid-out graph over stock
//     torch.export.load's (goal <= 0.5); the resident memory opening adds over the weight bytes
//     (goal < 0.25); and the window's resident memory after opening it (a fresh process driving the
//     MainWindow offscreen to its first drawing) over graft-cli info's peak (goal <= 1.3);
//   - ops: a decomposed GPT-2 of 300 blocks (about 20,000 ops; make_gpt2_program.py blocks):
//     graft-cli info's wall time over stock torch.export.load's (goal <= 0.25), with the phases of
//     Graft's open measured in this process.
//   bench_open [--weights PROGRAM.pt2] [--ops PROGRAM.pt2]
// The programs default to $GRAFT_TESTDATA/bench/gpt2_350m.pt2 and gpt2_300blocks.pt2, made when
// missing. The Python interpreter is $GRAFT_PYTHON or .venv/bin/python; graft-cli is $GRAFT_CLI or
// the one built beside this benchmark.
#include "core/io/load.h"
#include "core/io/pt2_import.h"
#include "core/layout/layout_engine.h"
#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "core/model/repeats.h"
#include "core/model/weight_bytes.h"
#include "core/report/info_report.h"
#include "tests/bench/resident_memory.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"

#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QEventLoop>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QTimer>
#include <QtWidgets/QApplication>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

using namespace graft::core;
using graft::bench::rssMiB;

namespace {

// Runs make_gpt2_program.py; its stdout, or an empty array after printing why.
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

// torch.export.load's seconds and the weight bytes it holds, or {} when Python failed.
QJsonObject torchLoad(const QString& path) {
  return QJsonDocument::fromJson(python({QStringLiteral("load"), path})).object();
}

struct ChildRun {
  bool ok = false;
  double seconds = 0, peakMiB = 0;
  QByteArray out;
};

// Runs `argv` to its end with stdout kept: its wall time and its own peak resident memory (wait4's).
ChildRun runChild(const QStringList& argv) {
  ChildRun r;
  std::vector<QByteArray> bytes;
  for (const auto& a : argv) bytes.push_back(QFile::encodeName(a));
  std::vector<char*> args;
  for (auto& b : bytes) args.push_back(b.data());
  args.push_back(nullptr);
  int pipeFds[2];
  if (::pipe(pipeFds) != 0) return r;
  QElapsedTimer timer;
  timer.start();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipeFds[1], 1);
    ::close(pipeFds[0]);
    ::close(pipeFds[1]);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(pipeFds[1]);
  char buffer[65536];
  for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;) r.out.append(buffer, n);
  ::close(pipeFds[0]);
  int status = 0;
  struct rusage usage {};
  if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid) return r;
  r.seconds = timer.nsecsElapsed() / 1e9;
  r.peakMiB = usage.ru_maxrss / 1024.0;
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return r;
}

QString cli() {
  return qEnvironmentVariable("GRAFT_CLI", QCoreApplication::applicationDirPath() + QStringLiteral("/../../app/graft-cli"));
}

// --window PATH (in a fresh process): the MainWindow offscreen opens PATH and draws it; prints the
// resident MiB then, and the process's peak.
int windowMode(int argc, char** argv, const QString& path) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  graft::ui::MainWindow window;
  window.resize(1366, 768);
  window.show();
  if (!window.openFile(path)) return 1;
  QEventLoop loop;
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (!window.buildingView() && !window.canvas()->layoutPending()) loop.quit();
  });
  poll.start(50);
  loop.exec();
  QTimer::singleShot(2000, &loop, &QEventLoop::quit);  // what the docks start after an open, started
  loop.exec();
  std::printf("{\"rss_mib\": %.1f, \"peak_mib\": %.1f}\n", rssMiB(), graft::bench::peakRssMiB());
  return 0;
}

// The 350 M-parameter program: open to laid-out graph, memory against weights and the window's.
int weights(const QString& path) {
  const auto reference = torchLoad(path);
  if (reference.isEmpty()) return 1;
  const double torchS = reference.value(QStringLiteral("load_s")).toDouble();

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
  const double weightMiB = model::weightBytes(*loaded.document->original()) / 1048576.0;

  std::printf("%s: %d ops, %lld groups, weights %.0f MiB (distinct storages)\n", qPrintable(QFileInfo(path).fileName()),
              view->opCount(), qlonglong(view->groups.size()), weightMiB);
  std::printf("open to laid-out graph: %.2f s (load %.2f, view %.2f, layout %.2f) | torch.export.load %.2f s | "
              "ratio %.3f (goal <= 0.5)\n",
              totalS, loadS, viewS, totalS - loadS - viewS, torchS, totalS / torchS);
  std::printf("resident memory added by opening: %.1f MiB | weights %.0f MiB | ratio %.3f (goal < 0.25)\n",
              rssAfter - rssBefore, weightMiB, (rssAfter - rssBefore) / weightMiB);

  const ChildRun info = runChild({cli(), QStringLiteral("info"), path, QStringLiteral("--json")});
  const ChildRun window = runChild({QCoreApplication::applicationFilePath(), QStringLiteral("--window"), path});
  const auto shown = QJsonDocument::fromJson(window.out).object();
  if (!info.ok || !window.ok || shown.isEmpty()) {
    std::fprintf(stderr, "bench_open: %s failed on %s\n", info.ok ? "the window" : "graft-cli info", qPrintable(path));
    return 1;
  }
  const double windowMiB = shown.value(QStringLiteral("rss_mib")).toDouble();
  std::printf("window resident after open: %.0f MiB (peak %.0f) | graft-cli info peak %.0f MiB | ratio %.3f "
              "(goal <= 1.3)\n",
              windowMiB, shown.value(QStringLiteral("peak_mib")).toDouble(), info.peakMiB, windowMiB / info.peakMiB);
  return diagram.groups.isEmpty() ? 1 : 0;
}

// The 20,000-op program: graft-cli info against torch.export.load, and where Graft's open goes.
int ops(const QString& path) {
  const ChildRun info = runChild({cli(), QStringLiteral("info"), path, QStringLiteral("--json")});
  const auto reference = torchLoad(path);
  if (!info.ok || reference.isEmpty()) {
    std::fprintf(stderr, "bench_open: %s failed on %s\n", info.ok ? "torch.export.load" : "graft-cli info",
                 qPrintable(path));
    return 1;
  }
  const double torchS = reference.value(QStringLiteral("load_s")).toDouble();
  QElapsedTimer timer;
  timer.start();
  const auto imported = io::importPt2(path);
  const double importS = timer.nsecsElapsed() / 1e9;
  timer.restart();
  auto loaded = io::loadFile(path);
  const double loadS = timer.nsecsElapsed() / 1e9;
  if (!imported.module || !loaded.ok()) return 1;
  timer.restart();
  const auto view = model::GraphView::build(*loaded.document->current(), *loaded.document);
  const double viewS = timer.nsecsElapsed() / 1e9;
  timer.restart();
  const auto repeats = model::findRepeats(view);
  const double repeatsS = timer.nsecsElapsed() / 1e9;
  timer.restart();
  const auto report = report::infoReport(*loaded.document);
  const double reportS = timer.nsecsElapsed() / 1e9;
  std::printf("%s: %d ops (program), %lld groups, %lld repeated runs\n", qPrintable(QFileInfo(path).fileName()),
              view.programOps, qlonglong(view.groups.size()), qlonglong(repeats.size()));
  std::printf("in this process: import %.2f s, load (import + revision) %.2f s, view %.2f s, repeats %.2f s, "
              "info report (view + repeats) %.2f s\n",
              importS, loadS, viewS, repeatsS, reportS);
  std::printf("graft-cli info: %.2f s (process, peak %.0f MiB) | torch.export.load %.2f s | ratio %.3f (goal <= 0.25)\n",
              info.seconds, info.peakMiB, torchS, info.seconds / torchS);
  return report.isEmpty() ? 1 : 0;
}

// The program at `path`, made by make_gpt2_program.py `how` when missing.
QString program(const QString& path, const QStringList& how) {
  QDir().mkpath(QFileInfo(path).absolutePath());
  if (!QFileInfo::exists(path)) {
    std::printf("exporting %s (once)…\n", qPrintable(path));
    std::fflush(stdout);
    python(QStringList{how.front(), path} + how.mid(1));
  }
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && QByteArray(argv[1]) == "--window") return windowMode(argc, argv, QString::fromLocal8Bit(argv[2]));
  QCoreApplication app(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const QString root = qEnvironmentVariable("GRAFT_TESTDATA", QStringLiteral("build/release/testdata"));
  QString weightsPath = QDir(root).filePath(QStringLiteral("bench/gpt2_350m.pt2"));
  QString opsPath = QDir(root).filePath(QStringLiteral("bench/gpt2_300blocks.pt2"));
  const QStringList args = app.arguments();
  for (int i = 1; i + 1 < args.size(); i += 2) {
    if (args[i] == QLatin1String("--weights")) weightsPath = args[i + 1];
    else if (args[i] == QLatin1String("--ops")) opsPath = args[i + 1];
    else {
      std::fprintf(stderr, "usage: bench_open [--weights PROGRAM.pt2] [--ops PROGRAM.pt2]\n");
      return 2;
    }
  }
  int status = weights(program(weightsPath, {QStringLiteral("make")}));
  status |= ops(program(opsPath, {QStringLiteral("blocks"), QStringLiteral("300")}));
  return status;
}
