#pragma once
// Help > About Graft: the versions of Graft, Qt, libtorch, torchvision's ops and Graphviz, the
// thread count and whether CUDA is available.
class QWidget;

namespace graft::ui {

void showAboutBox(QWidget* parent);

}  // namespace graft::ui
