#pragma once
// Every operator libtorch has registered, searchable by name, for the Insert/Replace op dialogs.
#include <QtCore/QString>
#include <QtCore/QVector>

namespace graft::core::edit {

struct OpEntry {
  QString name;      // "aten::relu"
  QString overload;  // "" or "Tensor", "out"...
  QString schema;    // "aten::relu(Tensor self) -> Tensor"
};

class OpPalette {
 public:
  // Snapshot of torch::jit::getAllOperators(), sorted by name then overload.
  static OpPalette fromRegistry();
  const QVector<OpEntry>& entries() const { return entries_; }
  // Entries whose name contains `text` (case-insensitive); names starting with it come first.
  // Out variants (overload "out") are left out unless `withOutVariants`.
  QVector<OpEntry> search(const QString& text, int limit = 200, bool withOutVariants = false) const;

 private:
  QVector<OpEntry> entries_;
};

}  // namespace graft::core::edit
