#pragma once
// Helpers for the GUI tests (header-only: only GUI test executables include it).
#include "core/model/graph_view.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/compare_dock.h"
#include "core/tour/tour.h"
#include "ui/document/document_controller.h"
#include "ui/export_actions.h"
#include "ui/main_window.h"
#include "ui/tour/tour_driver.h"
#include "test_support.h"

#include <QtTest/QTest>

#include <QtTest/QSignalSpy>

namespace graft::test {

// Waits for the layout in flight, if any (two minutes at most).
inline bool waitLayout(ui::canvas::GraphCanvas* canvas) {
  QSignalSpy spy(canvas, &ui::canvas::GraphCanvas::layoutFinished);
  if (!canvas->layoutPending()) return true;
  return spy.wait(120000);
}

// Starts the dock's comparison and waits until it finished (`timeoutMs` at most).
inline bool runCompare(ui::CompareDock* dock, int timeoutMs = 120000) {
  QSignalSpy done(dock, &ui::CompareDock::finished);
  dock->start();
  return done.count() == 1 || done.wait(timeoutMs);
}

// The first node of kind `kind` in module `path`, or kNoNode.
inline core::model::NodeId nodeAt(const core::model::GraphView* view, const QString& path, const QString& kind) {
  for (const auto& n : view->nodes)
    if (n.modulePath == path && n.kind == kind) return n.id;
  return core::model::kNoNode;
}

// Runs one tour action (`kind` with `key`: `value`) as a tour step would; empty when it worked,
// else why not.
inline QString performTourAction(ui::MainWindow& window, const QString& kind, const QString& key, const QString& value) {
  core::tour::Action action;
  action.kind = kind;
  action.args.insert(key, value);
  bool done = false;
  QString failure;
  window.parts().tourDriver->perform({action}, [&](const QString& error) {
    failure = error;
    done = true;
  });
  if (!QTest::qWaitFor([&] { return done; }, 60000)) return QStringLiteral("the action did not finish");
  return failure;
}

// Shows `window` at screenshot size with test model `file` (e.g. "resnet18.pt") laid out.
inline bool showModel(ui::MainWindow& window, const QString& file) {
  window.resize(1600, 1000);
  window.show();
  return window.openFile(testdata(file)) && waitLayout(window.canvas());
}

}  // namespace graft::test
