#include "ui/heatmap_actions.h"

#include "ui/canvas/graph_canvas.h"
#include "ui/compare_dock.h"
#include "ui/profile/profile_dock.h"

#include <QtCore/QSignalBlocker>
#include <QtGui/QAction>

namespace graft::ui {

HeatmapActions::HeatmapActions(canvas::GraphCanvas* canvas, ProfileDock* profile, CompareDock* compare, QObject* parent)
    : QObject(parent), canvas_(canvas), profile_(profile), compare_(compare) {
  cost = new QAction(tr("Cost &Heatmap"), this);
  cost->setObjectName(QStringLiteral("heatmapAction"));
  cost->setCheckable(true);
  cost->setEnabled(false);
  cost->setToolTip(tr("Colour nodes by their self time in the last profile (Profile dock)"));
  delta = new QAction(tr("Cost &Change Heatmap (vs Original)"), this);
  delta->setObjectName(QStringLiteral("deltaHeatmapAction"));
  delta->setToolTip(tr("Colour nodes by how much faster (green) or slower (red) they run than what they replaced"));
  connect(delta, &QAction::triggered, this, [this] {
    const auto deltas = profile_->nodeDeltas();
    if (deltas.isEmpty()) {
      Q_EMIT message(tr("Profile the original and a revision first (Run > Profile)."));
      return;
    }
    QSignalBlocker block(cost);
    cost->setChecked(true);
    canvas_->setHeat(deltas, /*signedDelta=*/true, profile_->costsAreKernelTimes());
  });
  connect(cost, &QAction::toggled, this, [this](bool on) {
    if (on) {
      QSignalBlocker block(compare_);
      compare_->setErrorMetric(CompareDock::ErrorMetric::Off);
    }
    canvas_->setHeat(on ? profile_->nodeCosts() : QHash<core::model::NodeId, double>{}, false,
                     profile_->costsAreKernelTimes());
  });
  connect(profile_, &ProfileDock::costsChanged, this, [this] {
    cost->setEnabled(!profile_->nodeCosts().isEmpty());
    if (cost->isChecked()) canvas_->setHeat(profile_->nodeCosts(), false, profile_->costsAreKernelTimes());
    else cost->setChecked(true);  // a fresh profile is shown on the graph at once
  });
  connect(compare_, &CompareDock::errorHeatChanged, this, [this] {
    QString title, low, high;
    const auto heat = compare_->errorHeat(&title, &low, &high);
    if (heat.isEmpty()) {
      if (!cost->isChecked()) canvas_->setHeat({});
      return;
    }
    showErrorHeat(heat, title, low, high);
  });
}

void HeatmapActions::reset() {
  cost->setChecked(false);
  cost->setEnabled(false);
}

void HeatmapActions::reapply() {
  if (cost->isChecked()) canvas_->setHeat(profile_->nodeCosts(), false, profile_->costsAreKernelTimes());
}

void HeatmapActions::showErrorHeat(const QHash<core::model::NodeId, double>& heat, const QString& title,
                                   const QString& low, const QString& high) {
  QSignalBlocker block(cost);  // one heatmap at a time: the error replaces the cost
  cost->setChecked(false);
  canvas_->setErrorHeat(heat, title, low, high);
}

}  // namespace graft::ui
