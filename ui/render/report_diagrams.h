#pragma once
// The drawn parts of an HTML report (core/report/html_report): a side's diagram as inline SVG
// with the report's differences and first divergence outlined, and the legend for them. Shared
// by `graft-cli report` and File > Export Report.
#include "core/layout/diagram.h"
#include "core/model/graph_view.h"
#include "core/report/html_report.h"

namespace graft::ui {

// Adds `diagram` of `view` to the report; `sideB` says which side of the report's diff it is.
void addReportDiagram(core::report::HtmlReport& report, const QString& caption, const core::layout::Diagram& diagram,
                      const core::model::GraphView& view, bool sideB);
// The legend of the colours addReportDiagram uses, for what the report holds.
void setReportLegend(core::report::HtmlReport& report);

}  // namespace graft::ui
