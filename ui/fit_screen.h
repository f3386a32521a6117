#pragma once
// Keeping the main window on the screen: docks whose contents scroll instead of imposing their
// minimum size on the window, and a window size clamped to the screen's available area.
class QWidget;
class QSize;

namespace graft::ui {

// `content` inside a frameless, resizable QScrollArea: the dock can be made smaller than the
// content's minimum size, which then scrolls.
QWidget* scrollable(QWidget* content);

// `preferred`, shrunk to fit the available area of `window`'s screen (the primary one before it
// is shown), with room for the window frame.
QSize fittedSize(const QWidget* window, const QSize& preferred);
// Shrinks and moves `window` so that it lies inside its screen's available area.
void fitToScreen(QWidget* window);

}  // namespace graft::ui
