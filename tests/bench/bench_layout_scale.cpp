// bench_layout_scale: how layout time grows with a program, as a ratio to the time to open it,
// both measured in this run (the target: an expanded 20,451-op program lays out in <= 3x its open).
//   bench_layout_scale PROGRAM...   (make them with tests/bench/make_gpt2_program.py blocks PATH N)
// Per program: open (load + GraphView, as graft-cli info), the expanded layout from an empty
// engine, the collapsed one, then expanding one block in the middle (what a click re-lays).
#include "core/io/load.h"
#include "core/layout/layout_engine.h"
#include "core/model/graph_view.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFileInfo>
#include <cstdio>

using namespace graft::core;

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const QStringList files = QCoreApplication::arguments().mid(1);
  if (files.isEmpty()) {
    std::fprintf(stderr, "usage: bench_layout_scale PROGRAM...\n");
    return 2;
  }
  std::printf("%-16s %7s %9s %11s %7s %8s %12s %s\n", "program", "ops", "open ms", "expanded ms", "ratio",
              "dot runs", "one block ms", "relaid");
  for (const QString& file : files) {
    QElapsedTimer t;
    t.start();
    auto loaded = io::loadFile(file);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s: %s\n", qPrintable(file), qPrintable(loaded.error.message()));
      return 1;
    }
    auto view = std::make_shared<const model::GraphView>(model::GraphView::build(*loaded.document->current()));
    const double openMs = double(t.nsecsElapsed()) / 1e6;
    layout::LayoutEngine engine;
    engine.setView(view);
    const layout::Diagram all = engine.layout(engine.expandAll());
    // The middle block: the child of the largest group that holds the most ops below it.
    layout::Expansion open{0};
    int parent = 0;
    for (const auto& g : view->groups)
      if (g.children.size() > view->groups[parent].children.size()) parent = g.index;
    for (int p = parent; p > 0; p = view->groups[p].parent) open.insert(p);
    layout::LayoutEngine clicks;
    clicks.setView(view);
    clicks.layout(open);
    const auto& row = view->groups[parent].children;
    open.insert(row.value(row.size() / 2));
    const layout::Diagram one = clicks.layout(open);
    std::printf("%-16s %7d %9.0f %11.0f %6.2fx %8d %12.1f %d of %d groups%s\n",
                qPrintable(QFileInfo(file).fileName()), int(view->opCount()), openMs, all.layoutMs,
                all.layoutMs / openMs, all.dotRuns, one.layoutMs, int(one.relaid.size()), int(view->groups.size()),
                all.fallbacks.isEmpty() ? "" : " (Graphviz fell back)");
  }
  return 0;
}
