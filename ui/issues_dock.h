#pragma once
// The Issues dock: the record of every diagnostic the GUI's jobs produced (load, edit, rewrite,
// compare, profile, save, layout). Immediate feedback (a message box, the status bar) stays where
// it was; this is the list to come back to. Clicking a row that names a node selects it.
#include "core/model/diagnostic.h"

#include <QtWidgets/QDockWidget>

class QLabel;
class QTableWidget;

namespace graft::ui {

class IssuesDock : public QDockWidget {
  Q_OBJECT
 public:
  explicit IssuesDock(QWidget* parent = nullptr);

  // Appends `diagnostics`, made on the document shown now (see setDocumentSerial); an error
  // brings the dock to the front when it is shown.
  void add(const core::model::Diagnostics& diagnostics);
  void clear();
  const core::model::Diagnostics& diagnostics() const { return diagnostics_; }
  QTableWidget* table() const { return table_; }
  // Node ids belong to one document: rows made while another was open select nothing.
  void setDocumentSerial(int serial) { serial_ = serial; }

  enum Column { kSeverity, kJob, kMessage, kHint, kNode, kWhere, kColumns };

 Q_SIGNALS:
  void nodeActivated(core::model::NodeId id);
  void countChanged(int count);

 private:
  void activateRow(int row);
  void updateTitle();
  QTableWidget* table_ = nullptr;
  QLabel* summary_ = nullptr;
  core::model::Diagnostics diagnostics_;
  int serial_ = 0;
};

}  // namespace graft::ui
