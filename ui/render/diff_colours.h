#pragma once
// The colours of a diff's kinds of difference: the diff view's list and canvas marks, and the
// HTML report's outlines and legend.
#include <QtGui/QColor>

namespace graft::ui::render {

enum class DiffKind { Added, Removed, Changed };

inline QColor diffColour(DiffKind kind) {
  switch (kind) {
    case DiffKind::Added: return {0x2e, 0x7d, 0x32};
    case DiffKind::Removed: return {0xd3, 0x2f, 0x2f};
    case DiffKind::Changed: return {0x15, 0x65, 0xc0};
  }
  return {};
}

}  // namespace graft::ui::render
