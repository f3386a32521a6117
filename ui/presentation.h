#pragma once
// Presentation mode (View > Presentation): larger fonts, only the canvas and the Tour panel (a
// dock that a job or a tour step would show stays hidden), the Tour panel wide enough for its
// code, the diagram refitted, and revision changes animated on the canvas. Leaving it restores
// the window as it was.
#include <QtCore/QByteArray>
#include <QtGui/QFont>

namespace graft::ui {

class MainWindow;

class Presentation {
 public:
  static constexpr double kFontScale = 1.5;
  explicit Presentation(MainWindow* window) : window_(window) {}
  void setEnabled(bool on);
  bool enabled() const { return on_; }
  // The Tour panel's share of the window's width while presenting.
  static constexpr double kTourShare = 0.4;

 private:
  void keepDocksHidden();

  MainWindow* window_;
  bool on_ = false;
  QByteArray dockState_;
  QFont font_;
};

}  // namespace graft::ui
