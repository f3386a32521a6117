// Diff speed, as ratios to baselines measured in the same run.
//   bench_diff [VIT_B_16.pt]   (default: $GRAFT_TESTDATA/vit_b_16.pt)
// 1. diffGraphs of two 20,000-op synthetic graphs (one with a few edits), by node id and by
//    structure, against a plain graph->copy() and GraphView::build of the same graph
//    (target: < 200 ms).
// 2. Opening the diff view of vit_b_16 (original vs its gelu-decompose rewrite) to its first
//    painted frame, against a plain canvas layout of the same model to its first frame
//    (target: < 1 s).
#include "core/edit/session.h"
#include "tests/bench/median_timing.h"
#include "core/edit/graph_diff.h"
#include "core/io/load.h"
#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "core/model/revision.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/diff/diff_view.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <torch/script.h>

#include <QtCore/QDir>
#include <QtTest/QSignalSpy>
#include <QtWidgets/QApplication>

#include <chrono>
#include <cstdio>
#include <sstream>

using namespace graft::core;
using graft::bench::Clock;
using graft::bench::medianMs;
using graft::bench::msSince;

namespace {

// A chain of `units` x 4 ops (add, relu, mul, sigmoid) with a constant scale per unit.
std::shared_ptr<torch::jit::Graph> syntheticGraph(int units) {
  std::ostringstream ir;
  ir << "graph(%self : Tensor, %h0 : Tensor, %y : Tensor):\n  %one : int = prim::Constant[value=1]()\n";
  for (int i = 0; i < units; ++i) {
    const std::string s = std::to_string(i);
    ir << "  %k" << s << " : float = prim::Constant[value=" << 1.0 + i % 7 * 0.125 << "]()\n"
       << "  %a" << s << " : Tensor = aten::add(%h" << s << ", %y, %one)\n"
       << "  %r" << s << " : Tensor = aten::relu(%a" << s << ")\n"
       << "  %m" << s << " : Tensor = aten::mul(%r" << s << ", %k" << s << ")\n"
       << "  %h" << i + 1 << " : Tensor = aten::sigmoid(%m" << s << ")\n";
  }
  ir << "  return (%h" << units << ")\n";
  auto g = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir.str(), g.get());
  return g;
}

bool waitIdle(graft::ui::canvas::GraphCanvas* c) {
  QSignalSpy spy(c, &graft::ui::canvas::GraphCanvas::layoutFinished);
  return !c->layoutPending() || spy.wait(120000);
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);

  // 1. Two synthetic revisions: B relu-free in 50 places and with 50 constants changed.
  model::NodeIdSource ids;
  torch::jit::Module tiny("Tiny");
  tiny.define("def forward(self, x):\n  return x\n");
  const auto base = model::Revision::original(tiny, true, QStringLiteral("tiny"), ids);
  const auto a = model::Revision::derived(*base, syntheticGraph(5000), {}, QStringLiteral("A"), ids);
  auto copy = a->cloneGraph();
  int edited = 0;
  std::vector<torch::jit::Node*> doomed;
  for (auto* n : copy.graph->nodes()) {
    if (n->kind() == c10::aten::relu && edited % 100 == 0) doomed.push_back(n);
    if (n->kind() == c10::aten::relu) ++edited;
  }
  for (auto* n : doomed) {
    n->output()->replaceAllUsesWith(n->input(0));
    copy.ids.erase(n);
    n->destroy();
  }
  int changedConstants = 0;
  for (auto* n : copy.graph->nodes())
    if (n->kind() == c10::aten::mul && changedConstants < 50 && copy.ids.count(n) && copy.ids.at(n) % 97 == 0) {
      torch::jit::WithInsertPoint at(n);
      n->replaceInput(1, copy.graph->insertConstant(42.0));
      ++changedConstants;
    }
  const auto b = model::Revision::derived(*a, copy.graph, copy.ids, QStringLiteral("B"), ids);
  int opsA = 0;
  for (auto* n : a->graph()->nodes()) opsA += n->kind().is_prim() ? 0 : 1;
  const double copyMs = medianMs(5, [&] { auto c = a->graph()->copy(); });
  const double viewMs = medianMs(5, [&] { auto v = model::GraphView::build(*a); });
  edit::GraphDiff d;
  const double byIdMs = medianMs(5, [&] { d = edit::diffGraphs(*a, *b, edit::DiffMatching::ByProvenance); });
  std::printf("synthetic: %d ops; diff: %d removed, %d changed, %d added\n", opsA, int(d.removed.size()),
              int(d.changed.size()), int(d.added.size()));
  const double byStructureMs = medianMs(5, [&] { d = edit::diffGraphs(*a, *b, edit::DiffMatching::ByStructure); });
  std::printf("baselines: graph->copy() %.1f ms, GraphView::build %.1f ms\n", copyMs, viewMs);
  std::printf("diff by node id     %7.1f ms  (%.2f x copy, %.2f x view)  target < 200 ms: %s\n", byIdMs, byIdMs / copyMs,
              byIdMs / viewMs, byIdMs < 200 ? "ok" : "MISSED");
  std::printf("diff by structure   %7.1f ms  (%.2f x copy, %.2f x view)  target < 200 ms: %s\n\n", byStructureMs,
              byStructureMs / copyMs, byStructureMs / viewMs, byStructureMs < 200 ? "ok" : "MISSED");

  // 2. The diff view of vit_b_16 to its first frame, beside a plain layout of the same model.
  const QString model = argc > 1 ? QString::fromLocal8Bit(argv[1])
                                 : QDir(qEnvironmentVariable("GRAFT_TESTDATA", "build/release/testdata")).filePath("vit_b_16.pt");
  graft::ui::MainWindow w;
  w.resize(1366, 768);
  w.show();
  if (!w.openFile(model) || !waitIdle(w.canvas())) {
    std::printf("cannot open %s\n", qPrintable(model));
    return 1;
  }
  const auto lib = rewrite::RuleLibrary::load();
  const auto* rule = lib.find(QStringLiteral("gelu-decompose"));
  auto rewritten = w.controller()->applyRewrite({rewrite::Step::ofRule(*rule)});
  if (!rewritten.ok()) {
    std::printf("gelu-decompose failed: %s\n", qPrintable(rewritten.error));
    return 1;
  }
  waitIdle(w.canvas());
  // Baseline: a fresh canvas showing the model (view built, laid out, painted).
  const double plainMs = medianMs(3, [&] {
    graft::ui::canvas::GraphCanvas canvas;
    canvas.resize(683, 700);
    canvas.show();
    canvas.setView(std::make_shared<model::GraphView>(model::GraphView::build(*w.controller()->document()->current())));
    waitIdle(&canvas);
    canvas.grab();
  });
  graft::ui::DiffView* view = nullptr;
  const double diffMs = medianMs(3, [&] {
    view = w.showDiff(0, w.controller()->document()->currentIndex());
    waitIdle(view->paneA());
    waitIdle(view->paneB());
    view->grab();
  });
  std::printf("vit_b_16 (%d differences): plain canvas to first frame %.0f ms; diff view to first frame %.0f ms "
              "(%.2f x plain)  target < 1000 ms: %s\n",
              int(view->entries().size()), plainMs, diffMs, diffMs / plainMs, diffMs < 1000 ? "ok" : "MISSED");
  return 0;
}
