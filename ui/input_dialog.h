#pragma once
// Asks for a model's inputs where the file does not record them: one row per forward argument with
// its type, a spec field prefilled with an example, checked as it is typed.
#include "core/io/input_specs.h"

#include <QtWidgets/QDialog>
#include <functional>

class QLabel;
class QLineEdit;
class QDialogButtonBox;

namespace graft::core::model { class Document; }

namespace graft::ui {

class InputDialog : public QDialog {
  Q_OBJECT
 public:
  InputDialog(const QVector<core::io::ArgumentInfo>& arguments, const QStringList& previous, QWidget* parent = nullptr);
  // One spec per argument, joined by "; " (the syntax of the docks' input boxes).
  QString specText() const;
  QLineEdit* field(int argument) const { return fields_.value(argument); }

  // The answer last given for `path` (QSettings), empty when none.
  static QString remembered(const QString& path);
  static void remember(const QString& path, const QString& specText);

 private:
  void validate();
  QVector<QLineEdit*> fields_;
  QLabel* problem_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
};

// Opens an InputDialog (window-modal, not blocking) for `document`'s forward arguments, prefilled
// with the answer last given for its file; on OK writes the answer into `box`, remembers it and
// calls `then`.
void askInputs(const core::model::Document* document, QLineEdit* box, QWidget* parent, std::function<void()> then);

// An example spec for an argument of TorchScript type `type` ("Tensor", "int", "List[int]").
QString exampleSpec(const QString& type);

}  // namespace graft::ui
