#pragma once
// The GUI's run settings: intra-op threads, kept in QSettings ("run/threads"; 0 = physical cores).
class QWidget;

namespace graft::ui {

// Applies the saved thread count (or the default) to libtorch; call once at start-up.
void applySavedThreads();

// Asks for a thread count, saves it and applies it. Returns whether it changed.
bool askThreads(QWidget* parent);

}  // namespace graft::ui
