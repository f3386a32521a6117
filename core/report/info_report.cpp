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

// Graph inputs and outputs named by their path in the program's signature where the file says
// ("logits", "d.a"), else by their values.
QVector<model::ViewPort> named(QVector<model::ViewPort> ports) {
  for (auto& p : ports)
    if (!p.path.isEmpty()) p.name = p.path;
  return ports;
}

}  // namespace

QJsonObject infoReport(const model::Document& document) {
  const auto rev = document.current();
  const auto view = model::GraphView::build(*rev, document);
  QJsonObject hist;
  for (const auto& [kind, count] : sortedHistogram(view)) hist.insert(kind, count);
  QJsonArray modules;
  for (const auto& g : view.groups) {
    if (g.parent < 0) continue;
    modules.append(QJsonObject{{"path", g.path}, {"type", g.typeName}, {"ops", g.totalOps}, {"nodes", g.totalNodes}});
  }
  QJsonArray repeats;
  for (const auto& r : model::findRepeats(view))
    repeats.append(
        QJsonObject{{"modules", QJsonArray::fromStringList(r.paths)}, {"count", r.paths.size()}, {"type", r.typeName}});
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
      {"inputs", portsJson(named(view.graphInputs))},
      {"outputs", portsJson(named(view.graphOutputs))},
      {"op_histogram", hist},
      {"modules", modules},
      {"repeats", repeats},
  };
}

QString infoText(const model::Document& document) {
  const auto rev = document.current();
  const auto view = model::GraphView::build(*rev, document);
  QStringList lines;
  lines << QStringLiteral("model:     %1%2")
               .arg(document.displayName(), rev->frozen() ? QString() : QStringLiteral(" (not frozen)"));
  lines << QStringLiteral("ops:       %1 (of %2 TorchScript nodes)").arg(view.opCount()).arg(view.jitNodes);
  lines << QStringLiteral("modules:   %1").arg(view.groups.size() - 1);
  for (const auto& p : named(view.graphInputs)) lines << QStringLiteral("input:     %1: %2").arg(p.name, p.type);
  for (const auto& p : named(view.graphOutputs)) lines << QStringLiteral("output:    %1: %2").arg(p.name, p.type);
  lines << QStringLiteral("op histogram:");
  for (const auto& [kind, count] : sortedHistogram(view)) lines << QStringLiteral("  %1  %2").arg(count, 5).arg(kind);
  return lines.join(QLatin1Char('\n'));
}

}  // namespace graft::core::report
