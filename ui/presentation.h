#pragma once
// Presentation mode (View > Presentation): larger fonts, only the canvas and the Tour panel (the
// Compare and Profile docks a step points at may show; any other dock stays hidden), labels at
// reading size, the Tour panel wide enough for its
// code, the diagram refitted, and revision changes animated on the canvas. Leaving it restores
// the window as it was.
#include <QtCore/QByteArray>
#include <QtCore/QObject>
#include <QtCore/QString>
#include <QtGui/QFont>

class QMainWindow;

namespace graft::ui {

namespace canvas { class GraphCanvas; }

class Presentation {
 public:
  static constexpr double kFontScale = 1.5;
  Presentation(QMainWindow* window, canvas::GraphCanvas* canvas) : window_(window), canvas_(canvas) {}
  void setEnabled(bool on);
  // What a tour step points at (a verdict, a tensor view, a chart) is shown while presenting.
  static bool keepsDock(const QString& objectName);
  bool enabled() const { return on_; }
  // The Tour panel's share of the window's width while presenting.
  static constexpr double kTourShare = 0.4;
  // Node labels on screen are at least this high: the canvas zooms in past the fit (and pans).
  static constexpr double kReadablePixels = 14;

 private:
  void keepDocksHidden();

  QMainWindow* window_;
  canvas::GraphCanvas* canvas_;
  bool on_ = false;
  QByteArray dockState_;
  QFont font_;
  QMetaObject::Connection readable_;  // keeps a new layout at reading size while presenting
};

}  // namespace graft::ui
