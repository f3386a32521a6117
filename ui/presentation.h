#pragma once
// Presentation mode (View > Presentation): larger fonts, only the canvas and the Tour panel (a
// dock that a job or a tour step would show stays hidden), the Tour panel wide enough for its
// code, the diagram refitted, and revision changes animated on the canvas. Leaving it restores
// the window as it was.
#include <QtCore/QByteArray>
#include <QtGui/QFont>

class QMainWindow;

namespace graft::ui {

namespace canvas { class GraphCanvas; }

class Presentation {
 public:
  static constexpr double kFontScale = 1.5;
  Presentation(QMainWindow* window, canvas::GraphCanvas* canvas) : window_(window), canvas_(canvas) {}
  void setEnabled(bool on);
  bool enabled() const { return on_; }
  // The Tour panel's share of the window's width while presenting.
  static constexpr double kTourShare = 0.4;

 private:
  void keepDocksHidden();

  QMainWindow* window_;
  canvas::GraphCanvas* canvas_;
  bool on_ = false;
  QByteArray dockState_;
  QFont font_;
};

}  // namespace graft::ui
