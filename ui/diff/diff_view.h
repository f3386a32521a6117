#pragma once
// The diff view: two graphs side by side in synced canvases (zoom, pan, expand and collapse in one
// pane move the other), added / removed / changed nodes outlined in the legend's colours, and the
// list of differences stepped through with Next / Previous (F8 / Shift+F8).
#include "core/model/graph_view.h"

#include <QtCore/QHash>
#include <QtWidgets/QWidget>
#include <memory>

class QLabel;
class QListWidget;
class QPushButton;

namespace graft::core::edit { struct GraphDiff; }

namespace graft::ui {

namespace canvas { class GraphCanvas; }

// What a compare or profile of the two sides measured, for the matched nodes' tooltips.
struct DiffMetrics {
  QHash<core::model::NodeId, double> maxAbs;   // by B's node id
  QHash<core::model::NodeId, double> selfMsA;  // by A's node id
  QHash<core::model::NodeId, double> selfMsB;  // by B's node id
};

class DiffView : public QWidget {
  Q_OBJECT
 public:
  // One difference in the list: the node on each side (kNoNode where the side has none).
  struct Entry {
    enum Kind { Added, Removed, Changed } kind;
    core::model::NodeId a = core::model::kNoNode, b = core::model::kNoNode;
    QString text;
  };
  static QColor colourOf(Entry::Kind kind);

  explicit DiffView(QWidget* parent = nullptr);
  ~DiffView() override;

  void setGraphs(std::shared_ptr<const core::model::GraphView> a, std::shared_ptr<const core::model::GraphView> b,
                 const core::edit::GraphDiff& diff, const QString& titleA, const QString& titleB);
  void setMetrics(const DiffMetrics& metrics);

  canvas::GraphCanvas* paneA() const { return panes_[0]; }
  canvas::GraphCanvas* paneB() const { return panes_[1]; }
  QListWidget* list() const { return list_; }
  const QVector<Entry>& entries() const { return entries_; }
  int current() const;
  // The node in B that matches A's node `a` (kNoNode when removed), and back.
  core::model::NodeId partnerInB(core::model::NodeId a) const { return aToB_.value(a, core::model::kNoNode); }
  core::model::NodeId partnerInA(core::model::NodeId b) const { return bToA_.value(b, core::model::kNoNode); }

 public Q_SLOTS:
  void next();
  void previous();
  void showEntry(int index);

 Q_SIGNALS:
  void currentChanged(int index);

 private:
  void follow(int from);           // makes the other pane show what pane `from` shows
  void followExpansion(int from);
  void applyMarks();

  canvas::GraphCanvas* panes_[2] = {nullptr, nullptr};
  QLabel* titles_[2] = {nullptr, nullptr};
  QLabel* legend_ = nullptr;
  QListWidget* list_ = nullptr;
  QPushButton* prev_ = nullptr;
  QPushButton* next_ = nullptr;
  std::shared_ptr<const core::model::GraphView> views_[2];
  QVector<Entry> entries_;
  QHash<core::model::NodeId, core::model::NodeId> aToB_, bToA_;  // matched nodes
  QHash<core::model::NodeId, QString> marksNote_[2];
  DiffMetrics metrics_;
  bool syncing_ = false;
  int leader_ = 0;  // the pane the user moved last
};

}  // namespace graft::ui
