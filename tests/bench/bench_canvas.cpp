// bench_canvas: frame times of the real canvas (GraphCanvas, offscreen) over a scripted session.
//   bench_canvas MODEL [--expand all] [--size 1920x1080] [--rounds N] [--trace]
// Each round: fit; 10 zoom steps in from the fit to 1:1 (at least 1.25x a step); 20 pans at 1:1;
// hovering across 50 nodes in view; 5 finds by module path across the program (search, reveal,
// layout when a module must open, paint); 10 zoom steps back out; Expand All; Collapse All (then the
// starting expansion again, untimed). Every step ends with viewport()->repaint(), so its time
// includes painting the whole viewport. Expand All and Collapse All wait for the layout worker:
// their rows are the whole step, and only the paint after the layout arrives counts as a frame.
// Prints p50 and p95 per step kind and a last line `frame p95 N ms` over every frame.
// Large programs: tests/bench/make_gpt2_program.py blocks PATH N (48 blocks ≈ 3,000 ops).
#include "core/io/load.h"
#include "core/model/graph_view.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_scene.h"
#include "ui/find_bar.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QEventLoop>
#include <QtGui/QMouseEvent>
#include <QtWidgets/QApplication>
#include <QtWidgets/QScrollBar>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

using namespace graft::core;
using graft::ui::canvas::GraphCanvas;

namespace {

double elapsedMs(const QElapsedTimer& t) { return double(t.nsecsElapsed()) / 1e6; }

// Nearest-rank percentile of `v` (sorted in place).
double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t rank = size_t(std::ceil(p / 100.0 * double(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

void waitLayout(GraphCanvas& canvas) {
  if (!canvas.layoutPending()) return;
  QEventLoop loop;
  QObject::connect(&canvas, &GraphCanvas::layoutFinished, &loop, &QEventLoop::quit);
  loop.exec();
}

struct Recorder {
  GraphCanvas& canvas;
  std::map<QString, std::vector<double>> steps;  // by step kind, in order of first use
  std::vector<QString> order;
  std::vector<double> frames;
  bool trace = false;  // --trace: every frame's time and zoom

  void add(const QString& kind, double ms) {
    if (!steps.count(kind)) order.push_back(kind);
    steps[kind].push_back(ms);
  }
  // Runs `step`, repaints the whole viewport, and records both as one frame of `kind`.
  template <typename Step>
  void frame(const QString& kind, Step&& step) {
    QElapsedTimer t;
    t.start();
    step();
    canvas.viewport()->repaint();
    const double ms = elapsedMs(t);
    if (trace) std::printf("  %-12s zoom %7.4f %7.1f ms\n", qPrintable(kind), canvas.zoom(), ms);
    add(kind, ms);
    frames.push_back(ms);
  }
  // A step that waits for a layout: the whole step is recorded as `kind`, the paint after the
  // layout arrived as a frame.
  template <typename Step>
  void relayout(const QString& kind, Step&& step) {
    QElapsedTimer t;
    t.start();
    step();
    waitLayout(canvas);
    QElapsedTimer paint;
    paint.start();
    canvas.viewport()->repaint();
    frames.push_back(elapsedMs(paint));
    add(kind, elapsedMs(t));
  }
};

// Scene positions of up to `count` node boxes inside the viewport, spread over it.
QVector<QPointF> nodesInView(const GraphCanvas& canvas, int count) {
  const QRectF shown = canvas.mapToScene(canvas.viewport()->rect()).boundingRect();
  QVector<QPointF> inside;
  for (const auto& n : canvas.diagram().nodes)
    if (shown.contains(n.rect.center())) inside << n.rect.center();
  QVector<QPointF> picked;
  for (int i = 0; i < count && !inside.isEmpty(); ++i) picked << inside[qsizetype(i) * inside.size() / count];
  return picked;
}

void hover(GraphCanvas& canvas, QPointF scenePos) {
  const QPointF at = canvas.mapFromScene(scenePos);
  QMouseEvent move(QEvent::MouseMove, at, canvas.viewport()->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                   Qt::NoModifier);
  QApplication::sendEvent(canvas.viewport(), &move);
}

// Find, as Ctrl+F does it: the search over every node for `text`, then the view on the first match
// (its modules expanded and laid out first when it is inside a collapsed one).
void find(GraphCanvas& canvas, graft::ui::FindBar& bar, const QString& text) {
  QObject::connect(&bar, &graft::ui::FindBar::matchActivated, &canvas, [&canvas](model::NodeId id) {
    canvas.revealNode(id);
    canvas.selectNode(id);
  }, Qt::SingleShotConnection);
  bar.search(text);
}

void round(Recorder& r, GraphCanvas& canvas, graft::ui::FindBar& bar, bool expanded) {
  r.frame(QStringLiteral("fit"), [&] { canvas.fitToWindow(); });
  // From the fit to reading size: the overview, boxes without text, then text.
  const double in = std::max(1.25, std::pow(1.0 / std::max(1e-6, canvas.zoom()), 0.1));
  for (int i = 0; i < 10; ++i) r.frame(QStringLiteral("zoom in"), [&] { canvas.zoomBy(in); });
  auto* h = canvas.horizontalScrollBar();
  auto* v = canvas.verticalScrollBar();
  for (int i = 0; i < 20; ++i)
    r.frame(QStringLiteral("pan"), [&] {
      // Down the graph by half a viewport, sideways every fifth pan.
      if (i % 5 == 4) h->setValue(h->value() + (i % 10 == 4 ? 1 : -1) * canvas.viewport()->width() / 3);
      else v->setValue(v->value() + canvas.viewport()->height() / 2);
    });
  const QVector<QPointF> targets = nodesInView(canvas, 50);
  for (int i = 0; i < 50 && !targets.isEmpty(); ++i)
    r.frame(QStringLiteral("hover"), [&] { hover(canvas, targets[i % targets.size()]); });
  // Module paths spread over the program, each a jump across it.
  const auto& nodes = canvas.view()->nodes;
  for (int i = 1; i <= 5 && !nodes.isEmpty(); ++i) {
    const auto& n = nodes[qsizetype(i) * (nodes.size() - 1) / 5];
    const QString text = n.modulePath.isEmpty() ? n.outputs.value(0).name : n.modulePath;
    r.relayout(QStringLiteral("find"), [&] { find(canvas, bar, text); });
  }
  for (int i = 0; i < 10; ++i) r.frame(QStringLiteral("zoom out"), [&] { canvas.zoomBy(1.0 / in); });
  r.relayout(QStringLiteral("expand all"), [&] { canvas.expandAll(); });
  r.relayout(QStringLiteral("collapse all"), [&] { canvas.collapseAll(); });
  if (expanded) {
    canvas.expandAll();
    waitLayout(canvas);
  }
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QStringList args = QCoreApplication::arguments().mid(1);
  const auto option = [&args](const QString& name) {
    const qsizetype at = args.indexOf(name);
    if (at < 0 || at + 1 >= args.size()) return QString();
    const QString value = args.takeAt(at + 1);
    args.removeAt(at);
    return value;
  };
  const bool trace = args.removeAll(QStringLiteral("--trace")) > 0;
  const bool expanded = option(QStringLiteral("--expand")) == QLatin1String("all");
  const QStringList size = option(QStringLiteral("--size")).split(QLatin1Char('x'));
  const int rounds = std::max(1, option(QStringLiteral("--rounds")).toInt());
  const int width = size.size() == 2 ? size[0].toInt() : 1920;
  const int height = size.size() == 2 ? size[1].toInt() : 1080;
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: bench_canvas MODEL [--expand all] [--size WxH] [--rounds N] [--trace]\n");
    return 2;
  }
  QElapsedTimer open;
  open.start();
  auto loaded = io::loadFile(args.front());
  if (!loaded.ok()) {
    std::fprintf(stderr, "bench_canvas: %s\n", qPrintable(loaded.error.headline));
    return 2;
  }
  auto view = std::make_shared<const model::GraphView>(
      model::GraphView::build(*loaded.document->current(), *loaded.document));
  const double openMs = elapsedMs(open);

  GraphCanvas canvas;
  canvas.resize(width, height);
  // Zooming keeps the middle of the view (offscreen, "under the mouse" is the top-left corner).
  canvas.setTransformationAnchor(QGraphicsView::AnchorViewCenter);
  canvas.show();
  QCoreApplication::processEvents();
  QElapsedTimer first;
  first.start();
  canvas.setView(view);
  waitLayout(canvas);
  if (expanded) {
    canvas.expandAll();
    waitLayout(canvas);
  }
  canvas.viewport()->repaint();
  const double firstMs = elapsedMs(first);
  std::printf("bench_canvas %s: %d ops, %s: %lld boxes, %lld edge routes, %lld groups drawn; canvas %dx%d "
              "(viewport %dx%d); open %.0f ms, layout to first frame %.0f ms; %d round(s)\n",
              qPrintable(args.front()), view->opCount(), expanded ? "expanded" : "collapsed",
              qlonglong(canvas.diagram().nodes.size()), qlonglong(canvas.diagram().edges.size()),
              qlonglong(canvas.diagram().groups.size()), width, height, canvas.viewport()->width(),
              canvas.viewport()->height(), openMs, firstMs, rounds);

  Recorder r{canvas};
  r.trace = trace;
  graft::ui::FindBar bar;
  bar.setView(view.get());
  for (int i = 0; i < rounds; ++i) round(r, canvas, bar, expanded);
  std::printf("%-14s %5s %9s %9s\n", "step", "n", "p50 ms", "p95 ms");
  for (const QString& kind : r.order) {
    auto& v = r.steps[kind];
    const size_t n = v.size();
    std::printf("%-14s %5zu %9.1f %9.1f\n", qPrintable(kind), n, percentile(v, 50), percentile(v, 95));
  }
  std::printf("frame p50 %.1f ms\n", percentile(r.frames, 50));
  std::printf("frame p95 %.1f ms\n", percentile(r.frames, 95));
  return 0;
}
