#include "ui/export_actions.h"

#include "core/io/atomic_write.h"
#include "core/io/file_policy.h"
#include "core/io/save.h"
#include "core/layout/flat_dot.h"
#include "core/layout/layout_engine.h"
#include "core/model/document.h"
#include "core/report/html_report.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/compare_dock.h"
#include "ui/document/document_controller.h"
#include "ui/document/off_thread.h"
#include "ui/main_docks.h"
#include "ui/selection.h"
#include "ui/shown_view.h"
#include "ui/profile/profile_dock.h"
#include "ui/render/diagram_export.h"
#include "ui/render/report_diagrams.h"

#include <QtCore/QFileInfo>
#include <QtGui/QAction>
#include <QtWidgets/QFileDialog>
#include <QtWidgets/QMainWindow>
#include <QtWidgets/QStatusBar>

namespace graft::ui {

ExportActions::ExportActions(const Workbench& parts, QObject* parent)
    : QObject(parent), parts_(parts), controller_(parts.controller) {
  svg = new QAction(tr("Export Diagram as &SVG…"), this);
  connect(svg, &QAction::triggered, this,
          [this] { exportDialog(tr("SVG images (*.svg)"), QStringLiteral(".svg"), &ExportActions::exportSvg); });
  png = new QAction(tr("Export Diagram as &PNG…"), this);
  connect(png, &QAction::triggered, this,
          [this] { exportDialog(tr("PNG images (*.png)"), QStringLiteral(".png"), &ExportActions::exportPng); });
  report = new QAction(tr("Export &Report…"), this);
  report->setObjectName(QStringLiteral("exportReportAction"));
  connect(report, &QAction::triggered, this,
          [this] { exportDialog(tr("HTML pages (*.html)"), QStringLiteral(".html"), &ExportActions::exportReport); });
  dot = new QAction(tr("Export Op Graph as &DOT…"), this);
  connect(dot, &QAction::triggered, this,
          [this] { exportDialog(tr("Graphviz DOT (*.dot *.gv)"), QStringLiteral(".dot"), &ExportActions::exportDot); });
}

void ExportActions::exportDialog(const QString& filter, const QString& suffix,
                                 bool (ExportActions::*write)(const QString&)) {
  if (!parts_.shown->view()) return;
  QString path = QFileDialog::getSaveFileName(parts_.window, tr("Export"), QString(), filter);
  if (path.isEmpty()) return;
  if (QFileInfo(path).suffix().isEmpty()) path += suffix;
  if ((this->*write)(path)) parts_.window->statusBar()->showMessage(tr("Wrote %1").arg(path), 5000);
}

bool ExportActions::mayWrite(const QString& path) {
  // The output policy: an export never replaces the opened model, nor writes to a device.
  const auto* doc = controller_->document();
  const QString why = core::io::checkOutputPath(path, {doc ? doc->sourcePath() : QString()});
  if (why.isEmpty()) return true;
  failed(path, why);
  return false;
}

void ExportActions::failed(const QString& path, const QString& error) {
  parts_.window->statusBar()->showMessage(error);
  Q_EMIT diagnosticsReported(core::io::SaveResult{false, error}.diagnostics(path));
}

bool ExportActions::exportSvg(const QString& path) {
  const auto* view = parts_.shown->view();
  if (!view || !mayWrite(path)) return false;
  QString error;
  if (canvas::writeSvg(path, parts_.canvas->diagram(), *view, &error)) return true;
  failed(path, error);
  return false;
}

bool ExportActions::exportPng(const QString& path) {
  const auto* view = parts_.shown->view();
  if (!view || !mayWrite(path)) return false;
  QString error;
  if (canvas::writePng(path, parts_.canvas->diagram(), *view, 1.5, 16000, &error)) return true;
  failed(path, error);
  return false;
}

bool ExportActions::exportDot(const QString& path) {
  const auto* view = parts_.shown->view();
  if (!view || !mayWrite(path)) return false;
  if (const QString why = core::io::writeAtomically(path, core::layout::flatDot(*view)); !why.isEmpty()) {
    failed(path, tr("Cannot write %1: %2").arg(path, why));
    return false;
  }
  return true;
}

bool ExportActions::exportReport(const QString& path) {
  const auto* doc = controller_->document();
  if (!doc || !parts_.shown->view() || !mayWrite(path)) return false;
  // What the window shows now is copied here; the report is assembled, laid out, drawn and
  // written off the GUI thread.
  const int current = doc->currentIndex();
  const QString originalLabel = tr("revision 0 “%1”").arg(doc->original()->name());
  const QString currentLabel = tr("revision %1 “%2”").arg(current).arg(doc->current()->name());
  auto view = std::make_shared<const core::model::GraphView>(*parts_.shown->view());
  const core::layout::Diagram diagram = parts_.canvas->diagram();
  QSet<QString> open;  // the original is drawn with the same modules open
  for (int g : parts_.canvas->expansion()) open.insert(view->groups.value(g).path);
  std::optional<core::run::CompareSummary> compare;
  if (parts_.docks->compare->summary().ok) compare = parts_.docks->compare->summary();
  const auto* profile = parts_.docks->profile;
  const auto before = profile->before(), after = profile->after();
  const QString noCompare = tr("No compare has been run (Compare dock)."),
                noProfile = tr("No profile has been run (Profile dock).");
  const QString profileBefore = tr("original"), profileAfter = tr("current");
  const QString why = runOffGuiThread([&] {
    core::report::HtmlReport r = core::report::assembleReport(*doc, *doc->original(), nullptr, doc->current().get(),
                                                              originalLabel, currentLabel);
    if (compare) r.compare = compare;
    else r.compareNote = noCompare;
    if (before) {
      r.before = before;
      r.after = after;
      r.beforeLabel = profileBefore;
      r.afterLabel = profileAfter;
    } else {
      r.profileNote = noProfile;
    }
    if (current != 0) {
      // The original beside the current revision (the layout may wait for the Graphviz worker).
      auto original = std::make_shared<core::model::GraphView>(core::model::GraphView::build(*doc->original(), *doc));
      core::layout::Expansion expanded{0};
      for (const auto& g : original->groups)
        if (open.contains(g.path)) expanded.insert(g.index);
      core::layout::LayoutEngine engine;
      engine.setView(original);
      addReportDiagram(r, originalLabel, engine.layout(expanded), *original, false);
    }
    addReportDiagram(r, currentLabel, diagram, *view, true);
    setReportLegend(r);
    return core::io::writeAtomically(path, core::report::htmlReport(r));
  });
  if (!why.isEmpty()) {
    failed(path, tr("Cannot write %1: %2").arg(path, why));
    return false;
  }
  return true;
}

}  // namespace graft::ui
