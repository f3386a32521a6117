#pragma once
// A searchable list of every registered operator with its schema, for Insert op… / Replace op….
#include <QtWidgets/QDialog>

class QLineEdit;
class QListWidget;
class QLabel;

namespace graft::ui {

class OpPaletteDialog : public QDialog {
  Q_OBJECT
 public:
  OpPaletteDialog(const QString& title, const QString& initialFilter, QWidget* parent = nullptr);
  ~OpPaletteDialog() override;
  // The chosen operator name ("aten::gelu"), empty if none.
  QString selectedOp() const;

 private:
  void refilter();
  struct Data;
  std::unique_ptr<Data> data_;
  QLineEdit* filter_ = nullptr;
  QListWidget* list_ = nullptr;
  QLabel* schema_ = nullptr;
};

}  // namespace graft::ui
