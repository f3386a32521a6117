#include "ui/render/report_diagrams.h"

#include "ui/render/diagram_export.h"
#include "ui/render/diff_colours.h"

namespace graft::ui {

namespace {
const QColor kDivergence(0x8b, 0x00, 0x00);
}

void addReportDiagram(core::report::HtmlReport& report, const QString& caption, const core::layout::Diagram& diagram,
                      const core::model::GraphView& view, bool sideB) {
  QHash<core::model::NodeId, QColor> outlines;
  if (report.diff) {
    const auto& d = *report.diff;
    if (sideB) {
      for (const auto& x : d.added) outlines.insert(x.node, render::diffColour(render::DiffKind::Added));
      for (const auto& x : d.changed) outlines.insert(x.node, render::diffColour(render::DiffKind::Changed));
    } else {
      for (const auto& x : d.removed) outlines.insert(x.node, render::diffColour(render::DiffKind::Removed));
      for (const auto& x : d.changed) outlines.insert(x.nodeA, render::diffColour(render::DiffKind::Changed));
    }
  }
  // The first divergence is B's node; with one diagram only, that diagram shows it.
  if (report.compare && report.compare->ok && report.compare->firstDivergence && (sideB || !report.diff))
    if (view.node(report.compare->firstDivergence->node))
      outlines.insert(report.compare->firstDivergence->node, kDivergence);
  report.diagrams.append({caption, canvas::svgElement(diagram, view, outlines)});
}

void setReportLegend(core::report::HtmlReport& report) {
  report.legend.clear();
  if (report.diff) {
    report.legend.append({render::diffColour(render::DiffKind::Added).name(), QStringLiteral("added")});
    report.legend.append({render::diffColour(render::DiffKind::Removed).name(), QStringLiteral("removed (or folded)")});
    report.legend.append({render::diffColour(render::DiffKind::Changed).name(), QStringLiteral("changed")});
  }
  if (report.compare && report.compare->ok && report.compare->firstDivergence)
    report.legend.append({kDivergence.name(), QStringLiteral("first divergence")});
}

}  // namespace graft::ui
