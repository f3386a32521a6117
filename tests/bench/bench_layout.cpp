// bench_layout: Graft's per-group layout against flat Graphviz dot over the same op graph, the
// canvas's repaint time for a fully expanded 20,000-node scene zoomed out, and the frame time of
// presentation mode's rewrite animation on vit_b_16 against a still frame of the same scene.
//   bench_layout [--no-flat] [--animation-only] [--only MODEL] [TESTDATA_DIR]
//   (default $GRAFT_TESTDATA; missing models are skipped; --only: that model's layout line alone,
//   MODEL one of resnet50, densenet121, vit_b_16, synthetic-20k)
// Flat dot runs in a child process so it can be cut off at the cap; it runs twice, plain and with
// Graft's effort bounds ("bounded flat dot", what the canvas goal graft/bounded <= 0.10x is against).
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/layout/flat_dot.h"
#include "core/layout/layout_engine.h"
#include "core/model/document.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "ui/canvas/revision_animation.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_scene.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QEventLoop>
#include <QtCore/QFileInfo>
#include <QtGui/QImage>
#include <QtGui/QPainter>
#include <QtWidgets/QApplication>
#include <QtWidgets/QGraphicsView>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>

using namespace graft::core;

namespace {

constexpr double kFlatCapSeconds = 60;
bool gSkipFlat = false;  // --no-flat

// A nested synthetic model: 20 stages x 10 blocks x 10 layers x 10 ops = 20,000 op nodes, a chain
// inside each layer plus a residual edge around every block.
std::shared_ptr<const model::GraphView> synthetic() {
  auto v = std::make_shared<model::GraphView>();
  static const char* ops[] = {"_convolution", "batch_norm", "relu", "add", "max_pool2d"};
  auto addGroup = [&](int parent, const QString& name, const QString& type) {
    model::ViewGroup g;
    g.index = int(v->groups.size());
    g.parent = parent;
    g.name = name;
    g.path = parent <= 0 ? name : v->groups[parent].path + QLatin1Char('.') + name;
    g.typeName = type;
    if (parent >= 0) v->groups[parent].children << g.index;
    v->groups << g;
    return g.index;
  };
  addGroup(-1, QString(), QStringLiteral("Synthetic"));
  model::NodeId next = 1, prev = model::kNoNode;
  auto edge = [&](model::NodeId a, model::NodeId b) {
    model::ViewEdge e;
    e.from = a;
    e.to = b;
    e.type = QStringLiteral("float32 [1, 64, 56, 56]");
    e.value = QStringLiteral("v%1").arg(a);
    v->edges << e;
  };
  for (int s = 0; s < 20; ++s) {
    const int sg = addGroup(0, QStringLiteral("stage%1").arg(s), QStringLiteral("Stage"));
    for (int b = 0; b < 10; ++b) {
      const int bg = addGroup(sg, QString::number(b), QStringLiteral("Block"));
      const model::NodeId blockIn = prev;
      for (int l = 0; l < 10; ++l) {
        const int lg = addGroup(bg, QStringLiteral("layer%1").arg(l), QStringLiteral("Layer"));
        for (int o = 0; o < 10; ++o) {
          model::ViewNode n;
          n.id = next++;
          n.op = QString::fromLatin1(ops[o % 5]);
          n.kind = QStringLiteral("aten::") + n.op;
          n.group = lg;
          n.modulePath = v->groups[lg].path;
          n.outputs << model::ViewPort{QStringLiteral("v%1").arg(n.id), QStringLiteral("float32 [1, 64, 56, 56]")};
          v->indexOf.insert(n.id, int(v->nodes.size()));
          v->nodes << n;
          v->groups[lg].nodes << n.id;
          if (prev != model::kNoNode) edge(prev, n.id);
          prev = n.id;
        }
      }
      if (blockIn != model::kNoNode) edge(blockIn, prev);  // the residual
    }
  }
  // totalNodes, bottom-up (children have larger indices than parents).
  for (int g = int(v->groups.size()) - 1; g >= 0; --g) {
    v->groups[g].totalNodes += int(v->groups[g].nodes.size());
    if (v->groups[g].parent >= 0) v->groups[v->groups[g].parent].totalNodes += v->groups[g].totalNodes;
  }
  return v;
}

// Flat dot over `view` in a child process; milliseconds, or -1 when cut off at the cap. `bounded`:
// with the effort bounds Graft's per-group layout uses (nslimit, nslimit1, mclimit).
double flatDotMs(const model::GraphView& view, bool bounded = false) {
  if (gSkipFlat) return -2;
  QByteArray dot = layout::flatDot(view);
  if (bounded) {
    const layout::LayoutOptions o;
    dot.insert(dot.indexOf('\n') + 1, QStringLiteral("  graph [nslimit=%1, nslimit1=%2, mclimit=%3];\n")
                                          .arg(o.nslimit).arg(o.nslimit1).arg(o.mclimit).toLatin1());
  }
  int fds[2];
  if (pipe(fds) != 0) return -2;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const double ms = layout::timeDotLayout(dot);
    (void)!write(fds[1], &ms, sizeof ms);
    _exit(0);
  }
  close(fds[1]);
  QElapsedTimer t;
  t.start();
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (t.elapsed() > kFlatCapSeconds * 1000) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      close(fds[0]);
      return -1;
    }
    usleep(20000);
  }
  double ms = -2;
  if (read(fds[0], &ms, sizeof ms) != sizeof ms) ms = -2;
  close(fds[0]);
  return ms;
}

QString flatText(double ms) {
  if (ms == -1) return QStringLiteral("> %1 s (capped)").arg(kFlatCapSeconds);
  if (ms < 0) return QStringLiteral("failed");
  return QStringLiteral("%1 ms").arg(ms, 0, 'f', 0);
}

void benchModel(const QString& name, std::shared_ptr<const model::GraphView> view) {
  // Fully expanded from an empty cache, five times (each in a new engine): the median run.
  QVector<layout::Diagram> runs;
  for (int i = 0; i < 5; ++i) {
    layout::LayoutEngine expanded;
    expanded.setView(view);
    runs << expanded.layout(expanded.expandAll());
  }
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.layoutMs < b.layoutMs; });
  const layout::Diagram& de = runs[runs.size() / 2];
  layout::LayoutEngine collapsed;
  collapsed.setView(view);
  const auto dc = collapsed.layout({});
  const double flat = flatDotMs(*view);
  const double bounded = flatDotMs(*view, true);
  const QString ratio = flat == -1 ? QStringLiteral("> %1x").arg(kFlatCapSeconds * 1000 / de.layoutMs, 0, 'f', 0)
                        : flat < 0 ? QStringLiteral("-")
                                   : QStringLiteral("%1x").arg(flat / de.layoutMs, 0, 'f', 1);
  // The canvas goal: Graft fully expanded at a small fraction of flat dot under the same bounds.
  const QString boundedRatio = bounded == -1 ? QStringLiteral("< %1x").arg(de.layoutMs / (kFlatCapSeconds * 1000), 0, 'f', 3)
                               : bounded < 0 ? QStringLiteral("-")
                                             : QStringLiteral("%1x").arg(de.layoutMs / bounded, 0, 'f', 3);
  std::printf("%-14s %6lld ops %5lld groups | graft expanded %8.1f ms (Graphviz in the worker %6.1f ms) | collapsed %7.1f ms | "
              "flat dot %-18s | flat/graft %s | bounded flat dot %-18s | graft/bounded %s\n",
              qPrintable(name), (long long)view->nodes.size(), (long long)view->groups.size(), de.layoutMs, de.graphvizMs,
              dc.layoutMs, qPrintable(flatText(flat)), qPrintable(ratio), qPrintable(flatText(bounded)), qPrintable(boundedRatio));
  std::fflush(stdout);
}

bool waitLayout(graft::ui::canvas::GraphCanvas& canvas) {
  if (!canvas.layoutPending()) return true;
  QEventLoop loop;
  QObject::connect(&canvas, &graft::ui::canvas::GraphCanvas::layoutFinished, &loop, &QEventLoop::quit);
  loop.exec();
  return true;
}

// Renders the canvas at `zoom` while panning across the scene, `frames` times; ms per frame.
double panFrameMs(graft::ui::canvas::GraphCanvas& canvas, double zoom, int frames) {
  canvas.resetTransform();
  canvas.scale(zoom, zoom);
  canvas.updateDetailMode();
  const QRectF r = canvas.graphScene()->sceneRect();
  QImage img(canvas.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
  QElapsedTimer t;
  t.start();
  for (int i = 0; i < frames; ++i) {
    canvas.centerOn(r.left() + r.width() * (i + 0.5) / frames, r.top() + r.height() * (i + 0.5) / frames);
    QPainter p(&img);
    canvas.render(&p, QRectF(), canvas.viewport()->rect());
  }
  return double(t.nsecsElapsed()) / 1e6 / frames;
}

void benchRepaint(std::shared_ptr<const model::GraphView> v) {
  graft::ui::canvas::GraphCanvas canvas;
  canvas.resize(1600, 1000);
  canvas.show();  // a hidden view has no real viewport size
  QCoreApplication::processEvents();

  QElapsedTimer first;
  first.start();
  canvas.setView(v);
  waitLayout(canvas);
  canvas.updateDetailMode();
  QImage img(canvas.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
  {
    QPainter p(&img);
    canvas.render(&p, QRectF(), canvas.viewport()->rect());
  }
  const double firstFrame = double(first.nsecsElapsed()) / 1e6;

  QElapsedTimer expand;
  expand.start();
  canvas.expandAll();
  waitLayout(canvas);
  const double expandMs = double(expand.nsecsElapsed()) / 1e6;
  canvas.fitToWindow();
  const double fit = canvas.zoom();
  const double fitMs = panFrameMs(canvas, fit, 10);
  const double farMs = panFrameMs(canvas, 0.05, 20);
  const double midMs = panFrameMs(canvas, 0.3, 20);
  const double oneMs = panFrameMs(canvas, 1.0, 20);
  std::printf("canvas 20k (%lld nodes, %lld edges drawn, viewport %dx%d): collapsed first frame %.1f ms (load to pixels) | "
              "expand all %.0f ms (layout+scene) | ms/frame panning: fit (zoom %.4f) %.1f, zoom 0.05 %.1f, zoom 0.3 %.1f, zoom 1.0 %.1f | "
              "zoomed-out frame vs 16 ms target: %.2fx\n",
              (long long)canvas.diagram().nodes.size(), (long long)canvas.diagram().edges.size(), canvas.viewport()->width(),
              canvas.viewport()->height(), firstFrame, expandMs, fit, fitMs, farMs, midMs, oneMs, std::max(fitMs, farMs) / 16.0);
}

// Presentation mode on a real model: fully expanded, a rewrite committed (`ruleId` on every
// match), and the frames of its animation rendered at reading zooms against still frames.
void benchRewriteAnimation(const QString& path, const QString& name, const QString& ruleId) {
  auto r = io::loadFile(path);
  if (!r.ok()) return;
  auto& doc = *r.document;
  graft::ui::canvas::GraphCanvas canvas;
  canvas.resize(1366, 768);
  canvas.show();
  QCoreApplication::processEvents();
  canvas.setAnimateRevisions(true);
  canvas.setView(std::make_shared<const model::GraphView>(model::GraphView::build(*doc.current())));
  waitLayout(canvas);
  canvas.expandAll();
  waitLayout(canvas);
  const auto library = rewrite::RuleLibrary::load();
  const auto* rule = library.find(ruleId);
  const auto applied = rewrite::applySteps(*doc.current(), {rewrite::Step::ofRule(*rule)}, doc.ids());
  if (!applied.ok()) {
    std::printf("rewrite animation: %s failed: %s\n", qPrintable(ruleId), qPrintable(applied.error));
    return;
  }
  graft::core::edit::Session(doc).commitBuilt(applied.revision);
  canvas.setView(std::make_shared<const model::GraphView>(model::GraphView::build(*doc.current())), true);
  waitLayout(canvas);
  auto* animation = canvas.animation();
  if (!animation) {
    std::printf("rewrite animation: none started\n");
    return;
  }
  QImage img(canvas.viewport()->size(), QImage::Format_ARGB32_Premultiplied);
  const QRectF scene = canvas.graphScene()->sceneRect();
  // ms per frame at `zoom`, centred on the middle of the scene; `animate` steps the animation
  // through 0..1 before each frame, else the same still scene is rendered (the baseline).
  auto frames = [&](double zoom, bool animate) {
    canvas.resetTransform();
    canvas.scale(zoom, zoom);
    canvas.updateDetailMode();
    canvas.centerOn(scene.center());
    constexpr int kFrames = 30;
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < kFrames; ++i) {
      if (animate) animation->setProgress(double(i) / (kFrames - 1));
      QPainter p(&img);
      canvas.render(&p, QRectF(), canvas.viewport()->rect());
    }
    return double(t.nsecsElapsed()) / 1e6 / kFrames;
  };
  std::printf("rewrite animation on %s (%s: %d matches, ops %d -> %d; %d nodes kept, %d added, %d removed; "
              "viewport %dx%d):\n",
              qPrintable(name), qPrintable(ruleId), applied.reports.front().matches, applied.opsBefore, applied.opsAfter, animation->keptCount(), animation->addedCount(),
              animation->removedCount(), canvas.viewport()->width(), canvas.viewport()->height());
  double worst = 0;
  for (double zoom : {0.25, 0.5, 1.0}) {
    const double still = frames(zoom, false);
    const double moving = frames(zoom, true);
    worst = std::max(worst, moving);
    std::printf("  zoom %.2f: %.1f ms/frame animated vs %.1f ms still (%.2fx)\n", zoom, moving, still, moving / still);
  }
  std::printf("  worst animated frame vs 16 ms target: %.2fx\n", worst / 16.0);
  animation->finish();
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QStringList args = QCoreApplication::arguments().mid(1);
  gSkipFlat = args.removeAll(QStringLiteral("--no-flat")) > 0;
  const bool animationOnly = args.removeAll(QStringLiteral("--animation-only")) > 0;
  QString only;
  if (const qsizetype at = args.indexOf(QStringLiteral("--only")); at >= 0 && at + 1 < args.size()) {
    only = args.takeAt(at + 1);
    args.removeAt(at);
  }
  const QString dir = !args.isEmpty() ? args.front() : qEnvironmentVariable("GRAFT_TESTDATA");
  // The animation is measured where a rewrite changes many boxes: gelu-decompose on vit_b_16,
  // fold-conv-bn (120 batch norms) on densenet121.
  auto animations = [&dir] {
    for (const auto& [name, rule] : {std::pair{QStringLiteral("vit_b_16"), QStringLiteral("gelu-decompose")},
                                     std::pair{QStringLiteral("densenet121"), QStringLiteral("fold-conv-bn")}}) {
      const QString path = dir + QStringLiteral("/%1.pt").arg(name);
      if (QFileInfo::exists(path)) benchRewriteAnimation(path, name, rule);
      else std::printf("rewrite animation on %s skipped: %s not found\n", qPrintable(name), qPrintable(path));
    }
  };
  if (animationOnly) {
    animations();
    return 0;
  }
  std::printf("bench_layout: Graft per-group layout vs flat dot (cap %.0f s); nslimit/mclimit bounded\n", kFlatCapSeconds);
  for (const char* name : {"resnet50", "densenet121", "vit_b_16"}) {
    if (!only.isEmpty() && only != QLatin1String(name)) continue;
    const QString path = dir + QStringLiteral("/%1.pt").arg(QLatin1String(name));
    if (!QFileInfo::exists(path)) {
      std::printf("%-14s skipped: %s not found (tests/python/make_models.py DIR %s)\n", name, qPrintable(path), name);
      continue;
    }
    auto r = io::loadFile(path);
    if (!r.ok()) {
      std::printf("%-14s failed to load: %s\n", name, qPrintable(r.error.headline));
      continue;
    }
    benchModel(QString::fromLatin1(name), std::make_shared<const model::GraphView>(model::GraphView::build(*r.document->current())));
  }
  if (only == QLatin1String("synthetic-20k")) benchModel(only, synthetic());
  if (!only.isEmpty()) return 0;
  animations();
  const auto syn = synthetic();
  benchModel(QStringLiteral("synthetic-20k"), syn);
  benchRepaint(syn);
  return 0;
}
