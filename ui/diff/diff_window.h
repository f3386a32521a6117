#pragma once
// The Diff window (a DiffView in a window of its own), made on first use and fitted to the
// screen: two revisions of one document matched by node id, or a revision against another
// model's document matched by module path, op and order.
#include "ui/diff/diff_view.h"
#include "ui/workbench.h"

#include <QtCore/QObject>
#include <QtCore/QPointer>

#include <optional>

namespace graft::core::model { class Document; }
namespace graft::core::run { struct CompareSummary; }
namespace graft::core::profile { struct Profile; }

namespace graft::ui {

// The figures a diff of revisions `a` and `b` of one document shows beside its nodes: the last
// comparison's error per node, and the profiled self times when the diff is original ↔ current
// (node ids are shared by the revisions of one document, so they apply where both sides have them).
DiffMetrics diffMetrics(const core::model::Document& document, int a, int b, const core::run::CompareSummary& compare,
                        const std::optional<core::profile::Profile>& before,
                        const std::optional<core::profile::Profile>& after);

class DiffWindow : public QObject {
  Q_OBJECT
 public:
  // `parts`: the window's, for the open document and the docks' figures.
  DiffWindow(const Workbench& parts, QWidget* owner);
  // The window, or null before the first diff.
  DiffView* view() const { return view_; }
  // History's Diff and View > Diff with Original: revisions `a` and `b` of the open document with
  // the Compare and Profile docks' figures; its summary goes to the status bar. Null when there
  // is nothing to compare.
  DiffView* showOpenRevisions(int a, int b);
  // File > Diff with File…: the open document's current revision against the model file `path`;
  // null, with the load error in the status bar, when it does not open.
  DiffView* showOpenAgainstFile(const QString& path);
  // Revisions `a` and `b` of `document`, with the last compare's and profile's figures; null
  // when either index is out of range. `summary` gets "Revisions 1 and 2: …" for a status bar.
  DiffView* showRevisions(const core::model::Document& document, int a, int b, const DiffMetrics& metrics,
                          QString* summary = nullptr);
  // The current revision of `document` against the current revision of `other`.
  DiffView* showDocuments(const core::model::Document& document, const core::model::Document& other);
  // The current revision of `document` against the model file `path`, opened off the GUI thread;
  // null with the load error (also shown as an error box) when it does not open.
  DiffView* showFile(const core::model::Document& document, const QString& path, QString* error);
  void hide();

 private:
  DiffView* ensure();
  void present();
  const Workbench& parts_;
  QWidget* owner_;
  QPointer<DiffView> view_;
};

}  // namespace graft::ui
