#pragma once
// The graph canvas: a zoomable, pannable view of the laid-out diagram. It owns the expansion
// state and a LayoutService (Graphviz on one worker thread); a +/- click or a reveal asks for a
// new layout, which replaces the scene when it arrives.
#include "core/layout/diagram.h"
#include "core/model/graph_view.h"

#include <QtWidgets/QGraphicsView>
#include <memory>

namespace graft::core::layout { class LayoutService; }

namespace graft::ui::canvas {

class GraphScene;
class HeatLegend;
class RevisionAnimation;

class GraphCanvas : public QGraphicsView {
  Q_OBJECT
 public:
  explicit GraphCanvas(QWidget* parent = nullptr);
  ~GraphCanvas() override;

  // Shows `view` collapsed to the top level, or, with `keepExpansion` (a new revision of the
  // same model), with the groups open that were open before (matched by module path).
  void setView(std::shared_ptr<const core::model::GraphView> view, bool keepExpansion = false);
  // No model: nothing drawn, no heatmap, no layout in flight (File > Close).
  void clear();
  const core::model::GraphView* view() const { return view_.get(); }
  GraphScene* graphScene() const { return scene_; }
  const core::layout::Diagram& diagram() const;
  const core::layout::Expansion& expansion() const { return expanded_; }
  bool layoutPending() const { return pending_ != 0; }

  void setExpansion(const core::layout::Expansion& expanded);
  // Repeated sibling modules (core/model/repeats) drawn as one "×N" box (on by default); a
  // click on its toggle unfolds that repeat into its modules.
  void setFoldRepeats(bool fold);
  bool foldRepeats() const { return foldRepeats_; }
  const core::layout::Folds& folds() const { return folds_; }
  void unfoldRepeatOf(int group);
  void toggleGroup(int group);
  // Expand All and Collapse All keep what the user looks at in view: the whole graph when it fits
  // at the zoom shown (fitted then), else the selected node, else the box nearest the centre.
  void expandAll();
  void collapseAll();
  // Expands the groups above `id` so that its box is drawn, then centres on it (zoomed in to
  // reading size when its text would not be drawn).
  void revealNode(core::model::NodeId id);
  void selectNode(core::model::NodeId id);
  // Drops the layout in flight (Esc); the expansion goes back to what is on screen.
  void cancelLayout();

  // Colours node boxes by self time (ms per node, e.g. from a profile) and shows a legend;
  // an empty map switches the heatmap off. `kernelTime`: the times are GPU kernel times.
  void setHeat(const QHash<core::model::NodeId, double>& selfMs, bool signedDelta = false, bool kernelTime = false);
  // Colours node boxes by an error (larger is worse; a collapsed group shows its worst node),
  // with the legend's title and the texts at both ends of its ramp.
  void setErrorHeat(const QHash<core::model::NodeId, double>& error, const QString& title, const QString& low,
                    const QString& high);
  bool heatVisible() const;
  // The heat legend (null before the first heatmap); it sits below the viewport, never over it.
  QWidget* heatLegend() const;

  // Presentation mode: a new revision's diagram replaces the old one with an animation
  // (RevisionAnimation) instead of at once.
  void setAnimateRevisions(bool on);
  bool animateRevisions() const { return animate_; }
  // The animation running now, or nullptr.
  RevisionAnimation* animation() const { return animation_.get(); }

  // Zooms by `factor` within [minZoom(), kMaxZoom]: a step that would pass a limit stops at it,
  // so zooming in works from any scale, however far out a fit went.
  void zoomBy(double factor);
  void fitToWindow();
  // The largest scale a fit uses (1: a small graph is not blown up; presentation mode raises it).
  void setMaxFitZoom(double zoom) { maxFitZoom_ = zoom; }
  double zoom() const { return transform().m11(); }
  // The scale at which the whole diagram fits the viewport (before fitToWindow's 1:1 cap).
  double fitZoom() const;
  // How far out zooming goes: half the fit scale, so a 1,629-op graph fitted at 0.005 can still
  // zoom out a little and always back in, and never further than kMinZoom for small graphs.
  double minZoom() const;
  static constexpr double kMinZoom = 0.1;
  static constexpr double kMaxZoom = 8;
  // Below this zoom the canvas paints the fast overview instead of its items.
  static constexpr double kOverviewZoom = 0.2;
  // Switches between items and the overview for the current zoom (paintEvent calls it).
  void updateDetailMode();

 Q_SIGNALS:
  void nodeActivated(core::model::NodeId id);
  void nodePicked(core::model::NodeId id);  // Ctrl+click on a box
  void layoutFinished();
  void layoutProgress(int done, int total);
  void viewportMoved();
  // The expansion was changed (a toggle, expand/collapse all, a reveal, setExpansion): a
  // second pane showing a related graph follows it.
  void expansionChanged();

 protected:
  void wheelEvent(QWheelEvent* event) override;
  // Zoomed out to the overview there are no items to click: a click (not a drag) selects the
  // box under the cursor, a double-click zooms in to reading size there.
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void resizeEvent(QResizeEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void drawBackground(QPainter* painter, const QRectF& rect) override;

 private:
  void relayout();
  // What stays in view across the relayout that expandAll, collapseAll or a toggle asks for.
  enum class Keep { Nothing, View, Group };
  void keepInView(Keep keep, int group = -1);
  void restoreView();
  // The node at or nearest the middle of the viewport (a node inside the box nearest it).
  core::model::NodeId nodeNearestCentre() const;
  // Scrolls so that `rect` is shown: centred when it fits, its top-left part when it does not.
  void showRect(const QRectF& rect);
  // Shows the heat legend in a strip of its own under the drawing (viewport margins), sized to
  // its texts; without a heatmap the strip goes.
  void placeHeatLegend();
  // Drops the fold of the repeat holding `group` (remembered by its first module's path).
  bool dropFold(int group);
  void computeFolds();
  void onLayout(int request, const core::layout::Diagram& diagram);

  GraphScene* scene_ = nullptr;
  HeatLegend* heatLegend_ = nullptr;
  core::layout::LayoutService* service_ = nullptr;
  std::shared_ptr<const core::model::GraphView> view_;
  core::layout::Expansion expanded_{0};
  core::layout::Expansion shown_{0};  // the expansion of the diagram on screen
  core::layout::Folds folds_;
  bool foldRepeats_ = true;
  QSet<QString> unfolded_;  // first modules of repeats the user unfolded, by path
  int pending_ = 0;
  bool fitNext_ = true;
  double maxFitZoom_ = 1.0;
  core::model::NodeId centreOn_ = core::model::kNoNode;
  Keep keep_ = Keep::Nothing;
  core::model::NodeId keepNode_ = core::model::kNoNode;  // Keep::View: the node to keep shown
  int keepGroup_ = -1;                                    // Keep::Group: the toggled group ...
  QPoint keepAt_;                                         // ... and where its top-left was
  QPoint pressPos_;
  bool animate_ = false;
  // What the scene showed before setView, kept until the new revision's layout arrives.
  std::shared_ptr<const core::model::GraphView> previousView_;
  core::layout::Diagram previousDiagram_;
  std::unique_ptr<RevisionAnimation> animation_;
};

}  // namespace graft::ui::canvas
