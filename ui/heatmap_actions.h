#pragma once
// View > Cost Heatmap and Cost Change Heatmap: the last profile's node times coloured on the
// canvas; and the one-heatmap-at-a-time rule when a comparison's error (Compare dock) or a
// quantization error takes the canvas instead.
#include "core/model/ids.h"

#include <QtCore/QHash>
#include <QtCore/QObject>

class QAction;

namespace graft::ui {

class CompareDock;
class ProfileDock;
namespace canvas { class GraphCanvas; }

class HeatmapActions : public QObject {
  Q_OBJECT
 public:
  HeatmapActions(canvas::GraphCanvas* canvas, ProfileDock* profile, CompareDock* compare, QObject* parent);

  QAction* cost = nullptr;   // by self time; enabled once a profile has node costs
  QAction* delta = nullptr;  // by the change against what each node replaced

  // A document was opened or closed: its costs are gone.
  void reset();
  // The canvas shows a new view: the cost heat is drawn on it again.
  void reapply();
  // An error heat (dB or max abs) replaces the cost heat.
  void showErrorHeat(const QHash<core::model::NodeId, double>& heat, const QString& title, const QString& low,
                     const QString& high);

 Q_SIGNALS:
  void message(const QString& text);

 private:
  canvas::GraphCanvas* canvas_;
  ProfileDock* profile_;
  CompareDock* compare_;
};

}  // namespace graft::ui
