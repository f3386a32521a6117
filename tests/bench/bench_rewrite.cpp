// Rewrite speed. Figures are ratios to a plain graph copy measured in the same run.
//   bench_rewrite [RESNET50.pt]   (default: $GRAFT_TESTDATA/resnet50.pt)
#include "tests/bench/median_timing.h"
#include "core/io/load.h"
#include "core/rewrite/apply.h"
#include "core/rewrite/library.h"
#include "core/rewrite/passes.h"

#include <torch/csrc/jit/ir/irparser.h>
#include <torch/script.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QFileInfo>

#include <chrono>
#include <cstdio>
#include <sstream>

using namespace graft::core;
using graft::bench::Clock;
using graft::bench::medianMs;
using graft::bench::msSince;

namespace {

// `units` repetitions of a 12-op unit that every built-in rule finds something in.
std::shared_ptr<torch::jit::Graph> syntheticGraph(int units) {
  std::ostringstream ir;
  const char* t8 = "Float(8, strides=[1], device=cpu) = prim::Constant[value=<Tensor>]()";
  ir << "graph(%h0 : Tensor, %y : Tensor):\n"
     << "  %one : int = prim::Constant[value=1]()\n  %false : bool = prim::Constant[value=0]()\n"
     << "  %p : float = prim::Constant[value=0.5]()\n  %none : str = prim::Constant[value=\"none\"]()\n"
     << "  %eps : float = prim::Constant[value=1.0000000000000001e-05]()\n  %mom : float = prim::Constant[value=0.1]()\n"
     << "  %w : Float(8, 8, strides=[8, 1], device=cpu) = prim::Constant[value=<Tensor>]()\n"
     << "  %w2 : Float(8, 8, strides=[8, 1], device=cpu) = prim::Constant[value=<Tensor>]()\n"
     << "  %cw : Float(8, 8, 1, 1, strides=[8, 1, 1, 1], device=cpu) = prim::Constant[value=<Tensor>]()\n"
     << "  %st1 : int[] = prim::Constant[value=[1, 1]]()\n  %pad0 : int[] = prim::Constant[value=[0, 0]]()\n"
     << "  %b : " << t8 << "\n  %gamma : " << t8 << "\n  %beta : " << t8 << "\n  %mean : " << t8 << "\n  %var : " << t8 << "\n";
  for (int i = 0; i < units; ++i) {
    const std::string s = std::to_string(i);
    ir << "  %c" << s << " : Tensor = aten::conv2d(%h" << s << ", %cw, %b, %st1, %pad0, %st1, %one)\n"
       << "  %cb" << s << " : Tensor = aten::batch_norm(%c" << s
       << ", %gamma, %beta, %mean, %var, %false, %mom, %eps, %false)\n"
       << "  %a" << s << " : Tensor = aten::add(%cb" << s << ", %y, %one)\n"
       << "  %r" << s << " : Tensor = aten::relu(%a" << s << ")\n"
       << "  %s" << s << " : Tensor = aten::silu(%r" << s << ")\n"
       << "  %hs" << s << " : Tensor = aten::hardswish(%s" << s << ")\n"
       << "  %g" << s << " : Tensor = aten::gelu(%hs" << s << ", %none)\n"
       << "  %d" << s << " : Tensor = aten::dropout(%g" << s << ", %p, %false)\n"
       << "  %m" << s << " : Tensor = aten::matmul(%d" << s << ", %w)\n"
       << "  %ma" << s << " : Tensor = aten::add(%m" << s << ", %b, %one)\n"
       << "  %l" << s << " : Tensor = aten::linear(%ma" << s << ", %w2, %b)\n"
       << "  %h" << i + 1 << " : Tensor = aten::batch_norm(%l" << s
       << ", %gamma, %beta, %mean, %var, %false, %mom, %eps, %false)\n";
  }
  ir << "  return (%h" << units << ")\n";
  auto g = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(ir.str(), g.get(), /*parse_tensor_constants=*/true);
  for (auto* n : g->nodes())
    if (n->kind() == c10::prim::Constant && n->kindOf(c10::attr::value) == torch::jit::AttributeKind::t)
      n->t(c10::attr::value).uniform_(0.5, 1.5);
  return g;
}

int ops(const torch::jit::Graph& g) {
  int n = 0;
  for (auto* node : g.nodes()) n += node->kind().is_prim() ? 0 : 1;
  return n;
}

QString ruleFileText(const rewrite::Rule& r) {
  QFile f(r.source == QLatin1String("builtin") ? QStringLiteral(":/rules/%1.rule").arg(r.id) : r.source);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const auto lib = rewrite::RuleLibrary::load();

  // 1. Every built-in rule, in library order, on one synthetic graph.
  auto graph = syntheticGraph(1750);
  const int before = ops(*graph);
  const double copyMs = medianMs(5, [&] { auto c = graph->copy(); });
  std::printf("synthetic graph: %d op nodes; baseline graph->copy(): %.1f ms\n", before, copyMs);
  std::printf("%-22s %8s %8s %10s %8s\n", "rule", "matches", "skipped", "ms", "x copy");
  double total = 0;
  for (const auto& rule : lib.rules()) {
    const auto t0 = Clock::now();
    const auto out = rewrite::applyRuleOnGraph(rule, graph, false);
    const double ms = msSince(t0);
    total += ms;
    graph->lint();
    if (const QString bad = rewrite::checkSchemas(*graph); !bad.isEmpty())
      std::printf("after %s: %s\n", qPrintable(rule.id), qPrintable(bad));
    std::printf("%-22s %8d %8d %10.1f %8.2f%s\n", qPrintable(rule.id), out.matches, int(out.skipped.size()), ms, ms / copyMs,
                out.error.isEmpty() ? "" : qPrintable(QStringLiteral("  error: ") + out.error));
  }
  for (const auto& pass : rewrite::passNames()) {
    const auto t0 = Clock::now();
    const auto out = rewrite::findNamed(rewrite::libtorchPasses(), pass)->run(graph, false, nullptr);
    const double ms = msSince(t0);
    total += ms;
    std::printf("%-22s %8d %8s %10.1f %8.2f\n", qPrintable(pass), out.matches, "-", ms, ms / copyMs);
  }
  std::printf("all rules + passes: %.1f ms (%.1f x copy), ops %d -> %d\n\n", total, total / copyMs, before, ops(*graph));

  // 2. Live preview in the rule editor: parse the rule text and count matches on ResNet-50.
  const QString model = argc > 1 ? QString::fromLocal8Bit(argv[1])
                                 : QDir(qEnvironmentVariable("GRAFT_TESTDATA", "build/release/testdata")).filePath("resnet50.pt");
  auto loaded = io::loadFile(model);
  if (!loaded.ok()) {
    std::printf("live preview: cannot load %s (%s)\n", qPrintable(model), qPrintable(loaded.error.headline));
    return 1;
  }
  const auto rev = loaded.document->current();
  const double rnCopyMs = medianMs(11, [&] { auto c = rev->graph()->copy(); });
  std::printf("live preview on %s (%d ops); baseline graph->copy(): %.2f ms; target < 100 ms\n",
              qPrintable(QFileInfo(model).fileName()), rewrite::opCount(*rev), rnCopyMs);
  std::printf("%-22s %8s %10s %8s\n", "rule", "matches", "ms", "x copy");
  double worst = 0;
  for (const auto& rule : lib.rules()) {
    const QString text = ruleFileText(rule);
    int matches = 0;
    const double ms = medianMs(11, [&] {
      const auto parsed = rewrite::parseRule(text, rule.id);
      matches = rewrite::previewMatches(*rev, parsed.rule).matches;
    });
    worst = std::max(worst, ms);
    std::printf("%-22s %8d %10.2f %8.2f\n", qPrintable(rule.id), matches, ms, ms / rnCopyMs);
  }
  std::printf("slowest live preview: %.2f ms (%s the 100 ms target)\n", worst, worst < 100 ? "within" : "OVER");
  return 0;
}
