#pragma once
// Operator libraries beside libtorch: torchvision's (torchvision::nms, roi_align, ...), found in
// the environment that the linked libtorch comes from and loaded once, so that detection and
// segmentation models open, run and compare.
#include <QtCore/QString>

namespace graft::core::io {

struct OperatorLibraryStatus {
  bool loaded = false;
  QString path;     // the library loaded, or the folder looked in
  QString version;  // torchvision's version, when found
  QString message;  // why it is not loaded, and what to do
};

// Loads torchvision's operator library the first time it is called; later calls return the
// first answer. Where it looks: $GRAFT_TORCHVISION_DIR, else the torchvision package beside the
// torch package whose libtorch this process runs. Never throws.
const OperatorLibraryStatus& loadTorchvisionOperators();

// The `__version__` a Python package folder's version.py declares ("2.14.1+cu130"); empty when
// there is none.
QString packageVersion(const QString& packageDir);

// The folder of the torch package (or libtorch archive) whose libraries this process runs:
// ".../site-packages/torch". Empty when it cannot be told.
QString loadedTorchRoot();

}  // namespace graft::core::io
