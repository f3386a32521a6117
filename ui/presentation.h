#pragma once
// Presentation mode (View > Presentation): larger fonts, only the canvas and the Tour panel,
// and revision changes animated on the canvas. Leaving it restores the window as it was.
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

 private:
  MainWindow* window_;
  bool on_ = false;
  QByteArray dockState_;
  QFont font_;
};

}  // namespace graft::ui
