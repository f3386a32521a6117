#include "core/report/info_report.h"

#include "core/model/repeats.h"

#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "core/model/value_format.h"

#include <torch/csrc/jit/ir/ir.h>

#include <QtCore/QJsonArray>
#include <algorithm>

namespace graft::core::report {

namespace {

QJsonArray portsJson(const QVector<model::ViewPort>& ports) {
  QJsonArray out;
  for (const auto& p : ports) out.append(QJsonObject{{"name", p.name}, {"type", p.type}});
  return out;
}

QVector<QPair<QString, int>> sortedHistogram(const model::GraphView& view) {
  const auto hist = view.opHistogram();
  QVector<QPair<QString, int>> rows;
  for (auto it = hist.begin(); it != hist.end(); ++it) rows.push_back({it.key(), it.value()});
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return rows;
}

// The graph's outputs, named by their path in a program's results ("logits", "past.0.1") where
// the file says how they nest; else the graph's single output value.
QVector<model::ViewPort> outputsOf(const model::Document& document, const model::GraphView& view) {
  const auto graph = document.current()->graph();
  const torch::jit::Value* out = graph->outputs().at(0);
  const QStringList& names = document.outputNames();
  if (names.isEmpty() || out->node()->kind() != c10::prim::TupleConstruct || out->node()->inputs().size() != size_t(names.size()))
    return view.graphOutputs;
  QVector<model::ViewPort> ports;
  for (size_t i = 0; i < out->node()->inputs().size(); ++i) ports.push_back({names[int(i)], model::formatType(out->node()->inputs()[i])});
  return ports;
}

// The graph's inputs, named by their path in forward's arguments ("d.a") where the file says.
QVector<model::ViewPort> inputsOf(const model::Document& document, const model::GraphView& view) {
  QVector<model::ViewPort> ports = view.graphInputs;
  const QStringList& names = document.inputNames();
  if (names.size() == ports.size())
    for (int i = 0; i < ports.size(); ++i) ports[i].name = names[i];
  return ports;
}

}  // namespace

QJsonObject infoReport(const model::Document& document) {
  const auto rev = document.current();
  const auto view = model::GraphView::build(*rev);
  QJsonObject hist;
  for (const auto& [kind, count] : sortedHistogram(view)) hist.insert(kind, count);
  QJsonArray modules;
  for (const auto& g : view.groups) {
    if (g.parent < 0) continue;
    modules.append(QJsonObject{{"path", g.path}, {"type", g.typeName}, {"ops", g.totalOps}, {"nodes", g.totalNodes}});
  }
  QJsonArray repeats;
  for (const auto& r : model::findRepeats(view))
    repeats.append(QJsonObject{{"modules", QJsonArray::fromStringList(r.paths)}, {"count", r.paths.size()}, {"type", r.typeName}});
  return QJsonObject{
      {"model", document.displayName()},
      {"format", document.format()},
      {"source", document.sourcePath()},
      {"frozen", rev->frozen()},
      {"ops", document.format() == QLatin1String("pt2") ? view.programOps : view.opCount()},
      {"jit_nodes", view.jitNodes},
      {"view_nodes", view.nodes.size()},
      {"edges", view.edges.size()},
      {"groups", view.groups.size() - 1},
      {"inputs", portsJson(inputsOf(document, view))},
      {"outputs", portsJson(outputsOf(document, view))},
      {"op_histogram", hist},
      {"modules", modules},
      {"repeats", repeats},
  };
}

QString infoText(const model::Document& document) {
  const auto rev = document.current();
  const auto view = model::GraphView::build(*rev);
  QStringList lines;
  lines << QStringLiteral("model:     %1%2").arg(document.displayName(), rev->frozen() ? QString() : QStringLiteral(" (not frozen)"));
  lines << QStringLiteral("ops:       %1 (of %2 TorchScript nodes)").arg(view.opCount()).arg(view.jitNodes);
  lines << QStringLiteral("modules:   %1").arg(view.groups.size() - 1);
  for (const auto& p : inputsOf(document, view)) lines << QStringLiteral("input:     %1: %2").arg(p.name, p.type);
  for (const auto& p : outputsOf(document, view)) lines << QStringLiteral("output:    %1: %2").arg(p.name, p.type);
  lines << QStringLiteral("op histogram:");
  for (const auto& [kind, count] : sortedHistogram(view)) lines << QStringLiteral("  %1  %2").arg(count, 5).arg(kind);
  return lines.join(QLatin1Char('\n'));
}

}  // namespace graft::core::report
