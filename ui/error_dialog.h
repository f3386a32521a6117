#pragma once
// A window-modal message box for a failed load or edit: headline, what to do, libtorch's details.
#include <QtCore/QString>

class QWidget;
class QMessageBox;

namespace graft::ui {

// Shows the box without blocking (QMessageBox::open) and returns it; it deletes itself on close.
QMessageBox* showError(QWidget* parent, const QString& title, const QString& headline, const QString& hint,
                       const QString& details);

}  // namespace graft::ui
