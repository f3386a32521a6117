#pragma once
// Graphviz `dot` layout of a GraphView, one module group at a time and bottom-up: a group's
// layout is a graph of its own op nodes and its child groups as boxes (an expanded child is a
// box of its laid-out size, a collapsed one a small labelled box). Edges are routed in the
// lowest group holding both endpoints, between the boxes that contain them. Layouts are cached
// per group and keyed by the expansion state below it, so expanding or collapsing a group re-lays
// only the groups above it.
//
// Graphviz runs in a layout worker process started once and reused (core/layout/layout_worker):
// each group goes there as a DotJob. A group it crashes or stalls on is drawn by Graft's own
// layered layout and named in Diagram::fallbacks, the worker is restarted, and the process goes
// on. A group too big for one bounded dot run goes to the layered layout at once.
//
// Dot results are also kept by job content (node names are positions, so a job is its shape):
// the 300 blocks of one LLM are one dot run, and a new revision re-runs dot only for the groups
// whose shape changed.
//
// Not thread-safe: use one engine on one thread (see LayoutService). Engines on different
// threads each use their own worker.
#include "core/layout/diagram.h"
#include "core/layout/dot_job.h"
#include "core/model/graph_view.h"

#include <QtCore/QHash>
#include <atomic>
#include <functional>
#include <memory>
#include <sys/types.h>
#include <vector>

namespace graft::core::layout {

struct GroupLayout;
class LayoutWorker;

struct LayoutOptions {
  // Bounds on dot's network-simplex and mincross effort; without them a dense group
  // (a DenseNet block) takes minutes.
  int nslimit = 4;
  int nslimit1 = 4;
  double mclimit = 0.2;
  // A group with more edges than this gets straight-segment routes (splines=polyline): curving
  // the 326 edges of a DenseNet block is most of its layout time.
  qsizetype curvedEdgesUpTo = 100;
  double ranksep = 0.3;  // inches
  double nodesep = 0.25;
  // A group with more items or edges than this is laid out by Graft's own layered layout
  // (core/layout/layered_layout): dot's time grows steeply past it (the 300 blocks of a decomposed
  // GPT-2 beside their mask ops, 347 items and 656 edges, took dot 27 s).
  qsizetype dotItemsUpTo = 200;
  qsizetype dotEdgesUpTo = 600;
  // A group Graphviz has not laid out in this time is drawn by the layered layout (its worker is
  // killed).
  int timeoutMs = 60000;
  // Worker processes one request may use at once: independent groups (siblings) are laid out
  // side by side. 0: two where the machine has four cores or more, else one (two Graphviz
  // processes on two cores only slow each other and the GUI down).
  int workers = 0;
};

class LayoutEngine {
 public:
  explicit LayoutEngine(LayoutOptions options = {});
  ~LayoutEngine();
  LayoutEngine(const LayoutEngine&) = delete;
  LayoutEngine& operator=(const LayoutEngine&) = delete;

  // A new view drops every cached layout.
  void setView(std::shared_ptr<const model::GraphView> view);
  const model::GraphView* view() const { return view_.get(); }

  // Lays out the diagram with `expanded` groups open (the root always is). `cancel`, polled
  // between groups, makes it return early with Diagram::cancelled; `progress(done, total)`.
  // `folds` draws repeated siblings as one box (their first module, collapsed).
  Diagram layout(const Expansion& expanded, const std::atomic<bool>* cancel = nullptr,
                 const std::function<void(int, int)>& progress = {}, const Folds& folds = {});

  // Every group expanded / groups at depth <= `depth` expanded (the root is depth 0, so 0 shows
  // the top level with its child modules collapsed).
  Expansion expandAll() const;
  Expansion expandToDepth(int depth) const;

  // The layout worker processes this engine uses now, -1 for one not running (test hooks): the
  // first, and all.
  pid_t workerPid() const;
  QVector<pid_t> workerPids() const;

 private:
  struct Built;  // a group's DotJob and what maps its result back to the group
  void prepare();
  QVector<int> signature(int group, const Expansion& expanded) const;
  void layoutGroups(const QVector<int>& stale, const Expansion& expanded, const std::atomic<bool>* cancel,
                    const std::function<void()>& groupDone, Diagram& d);
  void build(int group, const Expansion& expanded, Built& b) const;
  void finish(int group, const Built& b, const DotResult* result, GroupLayout& out) const;
  void store(int group, GroupLayout layout);
  void remember(const QByteArray& job, const DotResult& result);
  void compose(int group, const Expansion& expanded, QPointF offset, int depth, Diagram& d) const;
  int itemIn(int group, model::NodeId node) const;
  QStringList repeatLabel(int first) const;  // child group index, or -1 for a direct node

  LayoutOptions options_;
  std::shared_ptr<const model::GraphView> view_;
  QVector<int> depth_;
  QVector<QVector<int>> edgesAt_;  // per group, view edges routed there
  // Per group, view edges that cross its frame inwards / outwards: inside, such an edge runs
  // between a port on the frame and the item holding its inner end.
  QVector<QVector<int>> entering_, leaving_;
  QHash<int, GroupLayout*> cache_;
  QHash<QByteArray, DotResult> dotMemo_;  // by serialised job; kept across views
  Folds folds_;                       // of the request being laid out
  QHash<int, QVector<int>> foldedBy_; // first module of a folded repeat -> the modules it hides
  std::vector<std::unique_ptr<LayoutWorker>> workers_;  // the first is taken when the engine is made
  // Test hooks: the module path where the worker crashes (GRAFT_TEST_LAYOUT_CRASH), hangs
  // (GRAFT_TEST_LAYOUT_HANG) or throws (GRAFT_TEST_LAYOUT_THROW) instead of laying out.
  const QString crashAt_ = qEnvironmentVariable("GRAFT_TEST_LAYOUT_CRASH");
  const QString hangAt_ = qEnvironmentVariable("GRAFT_TEST_LAYOUT_HANG");
  const QString throwAt_ = qEnvironmentVariable("GRAFT_TEST_LAYOUT_THROW");
};

}  // namespace graft::core::layout
