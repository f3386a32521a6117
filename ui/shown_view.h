#pragma once
// The current revision as the window shows it: its GraphView (built off the GUI thread, with the
// shapes one run finds where the graph records none), handed to the canvas, the Modules tree,
// the IR and Code views, the find bar and the inspector, with a status line. A view built for a
// revision that is no longer current is dropped.
#include "ui/workbench.h"

#include <QtCore/QObject>
#include <memory>

namespace graft::core::model { class Document; class GraphView; }

namespace graft::ui {

class ShownView : public QObject {
  Q_OBJECT
 public:
  // `parts` is the window's, filled by the time a document opens.
  ShownView(const Workbench& parts, QObject* parent);

  const core::model::GraphView* view() const { return view_.get(); }
  // True while a view is built off the GUI thread: timers still fire then, and nothing may
  // change or drop the document meanwhile (the build reads it).
  bool building() const { return building_ > 0; }

  // Builds and shows the current revision of the open document.
  void refresh();
  // Nothing of the shown document stays (another document, or none).
  void forget();
  // Whether the current revision's edges can show shapes: its graph records them, or a run found them.
  bool shapesKnown() const;
  // View > Show Shapes on Edges: where the model records neither shapes nor inputs, asks for the
  // inputs (in Compare's dialog) and shows the view again with the shapes one run finds.
  void showShapes();

 Q_SIGNALS:
  // A view of the current revision is on the canvas (another document's, or a new revision's).
  void shown();

 private:
  const Workbench& parts_;
  std::shared_ptr<core::model::GraphView> view_;  // shared with the layout thread
  int generation_ = 0;  // a view built for an older revision is dropped
  int building_ = 0;
  const core::model::Document* shownDocument_ = nullptr;  // whose view the canvas shows
};

}  // namespace graft::ui
