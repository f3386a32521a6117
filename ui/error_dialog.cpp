#include "ui/error_dialog.h"

#include <QtWidgets/QMessageBox>

namespace graft::ui {

QMessageBox* showError(QWidget* parent, const QString& title, const QString& headline, const QString& hint,
                       const QString& details) {
  auto* box = new QMessageBox(QMessageBox::Warning, title, headline, QMessageBox::Ok, parent);
  box->setObjectName(QStringLiteral("errorDialog"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setInformativeText(hint);
  if (!details.isEmpty()) box->setDetailedText(details);
  box->setWindowModality(Qt::WindowModal);
  box->open();
  return box;
}

}  // namespace graft::ui
