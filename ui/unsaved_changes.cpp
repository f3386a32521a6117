#include "ui/unsaved_changes.h"

#include <QtGui/QGuiApplication>
#include <QtWidgets/QMessageBox>

namespace graft::ui {

UnsavedAnswer askAboutUnsaved(QWidget* parent, const QString& documentName) {
  const QString platform = QGuiApplication::platformName();
  if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal")) return UnsavedAnswer::Keep;
  QMessageBox box(QMessageBox::Warning, QObject::tr("Unsaved changes"),
                  QObject::tr("%1 has changes that are not saved.").arg(documentName),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
  box.setObjectName(QStringLiteral("unsavedChangesBox"));
  box.setInformativeText(QObject::tr("Save the current revision before going on?"));
  box.setDefaultButton(QMessageBox::Save);
  switch (box.exec()) {
    case QMessageBox::Save: return UnsavedAnswer::Save;
    case QMessageBox::Discard: return UnsavedAnswer::Discard;
    default: return UnsavedAnswer::Cancel;
  }
}

}  // namespace graft::ui
