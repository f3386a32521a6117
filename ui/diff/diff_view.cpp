#include "ui/diff/diff_view.h"
#include "ui/render/diff_colours.h"

#include "core/edit/graph_diff.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"

#include <QtGui/QShortcut>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QLabel>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QSplitter>
#include <QtWidgets/QVBoxLayout>
#include <algorithm>
#include <limits>

namespace graft::ui {

using core::model::kNoNode;
using core::model::NodeId;

QColor DiffView::colourOf(Entry::Kind kind) {
  switch (kind) {
    case Entry::Added: return render::diffColour(render::DiffKind::Added);
    case Entry::Removed: return render::diffColour(render::DiffKind::Removed);
    case Entry::Changed: return render::diffColour(render::DiffKind::Changed);
  }
  return {};
}

namespace {

QString where(const QString& op, const QString& modulePath) {
  return modulePath.isEmpty() ? op : QStringLiteral("%1  %2").arg(op, modulePath);
}

QString swatch(const QColor& c, const QString& text) {
  return QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2").arg(c.name(), text.toHtmlEscaped());
}

}  // namespace

DiffView::DiffView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("diffView"));
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(4, 4, 4, 4);
  legend_ = new QLabel(this);
  legend_->setObjectName(QStringLiteral("diffLegend"));
  legend_->setTextFormat(Qt::RichText);
  column->addWidget(legend_);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  for (int side = 0; side < 2; ++side) {
    auto* pane = new QWidget(splitter);
    auto* paneColumn = new QVBoxLayout(pane);
    paneColumn->setContentsMargins(0, 0, 0, 0);
    titles_[side] = new QLabel(pane);
    titles_[side]->setStyleSheet(QStringLiteral("font-weight: bold"));
    panes_[side] = new canvas::GraphCanvas(pane);
    panes_[side]->setObjectName(side == 0 ? QStringLiteral("diffPaneA") : QStringLiteral("diffPaneB"));
    panes_[side]->setFoldRepeats(false);  // a difference inside a repeat must stay visible
    paneColumn->addWidget(titles_[side]);
    paneColumn->addWidget(panes_[side], 1);
    splitter->addWidget(pane);
    connect(panes_[side], &canvas::GraphCanvas::viewportMoved, this, [this, side] {
      if (syncing_) return;
      leader_ = side;
      follow(side);
    });
    connect(panes_[side], &canvas::GraphCanvas::expansionChanged, this, [this, side] { followExpansion(side); });
    connect(panes_[side], &canvas::GraphCanvas::layoutFinished, this, [this, side] {
      // Room around the diagram, so that a pane can put any node where the other one has its
      // partner: near the edges the two diagrams do not line up.
      const QRectF bounds = panes_[side]->diagram().bounds;
      const double margin = std::max(bounds.width(), bounds.height()) + 5000;
      panes_[side]->setSceneRect(bounds.adjusted(-margin, -margin, margin, margin));
      if (!syncing_) follow(leader_);
    });
    connect(panes_[side], &canvas::GraphCanvas::nodeActivated, this, [this, side](NodeId id) {
      // A click on a listed node makes it the current entry; any click selects the partner too.
      for (int i = 0; i < entries_.size(); ++i)
        if ((side == 0 ? entries_[i].a : entries_[i].b) == id) return showEntry(i);
      panes_[side]->selectNode(id);
      panes_[1 - side]->selectNode(side == 0 ? partnerInB(id) : partnerInA(id));
    });
  }

  auto* side = new QWidget(splitter);
  auto* sideColumn = new QVBoxLayout(side);
  sideColumn->setContentsMargins(0, 0, 0, 0);
  list_ = new QListWidget(side);
  list_->setObjectName(QStringLiteral("diffList"));
  auto* buttons = new QHBoxLayout;
  prev_ = new QPushButton(tr("◀ Previous"), side);
  prev_->setToolTip(tr("Previous difference (Shift+F8)"));
  next_ = new QPushButton(tr("Next ▶"), side);
  next_->setToolTip(tr("Next difference (F8)"));
  auto* close = new QPushButton(tr("Close"), side);
  close->setObjectName(QStringLiteral("diffCloseButton"));
  close->setToolTip(tr("Close the diff window (Esc)"));
  buttons->addWidget(prev_);
  buttons->addWidget(next_);
  buttons->addStretch(1);
  buttons->addWidget(close);
  connect(close, &QPushButton::clicked, this, &QWidget::close);
  sideColumn->addWidget(list_, 1);
  sideColumn->addLayout(buttons);
  splitter->addWidget(side);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 3);
  splitter->setStretchFactor(2, 1);
  splitter->setSizes({520, 520, 320});
  column->addWidget(splitter, 1);

  connect(prev_, &QPushButton::clicked, this, &DiffView::previous);
  connect(next_, &QPushButton::clicked, this, &DiffView::next);
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row >= 0) showEntry(row);
  });
  auto* nextKey = new QShortcut(QKeySequence(Qt::Key_F8), this, this, &DiffView::next);
  nextKey->setContext(Qt::WidgetWithChildrenShortcut);
  auto* prevKey = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8), this, this, &DiffView::previous);
  prevKey->setContext(Qt::WidgetWithChildrenShortcut);
  auto* closeKey = new QShortcut(QKeySequence(Qt::Key_Escape), this, this, &QWidget::close);
  closeKey->setContext(Qt::WidgetWithChildrenShortcut);
}

DiffView::~DiffView() = default;

void DiffView::setGraphs(std::shared_ptr<const core::model::GraphView> a,
                         std::shared_ptr<const core::model::GraphView> b, const core::edit::GraphDiff& diff,
                         const QString& titleA, const QString& titleB) {
  views_[0] = std::move(a);
  views_[1] = std::move(b);
  aToB_.clear();
  bToA_.clear();
  for (const auto& [ia, ib] : diff.pairs) {
    aToB_.insert(ia, ib);
    bToA_.insert(ib, ia);
  }
  // The list in A's graph order; an added node sits after the matched node before it in B.
  QVector<QPair<double, Entry>> keyed;
  for (const auto& r : diff.removed) {
    Entry e{Entry::Removed, r.node, kNoNode, QStringLiteral("− ") + where(r.op, r.modulePath)};
    if (r.foldedInto) {
      e.b = r.foldedInto->node;
      e.text += tr("  → folded into %1").arg(where(r.foldedInto->op, r.foldedInto->modulePath));
    }
    keyed.append({double(views_[0]->indexOf.value(r.node)), e});
  }
  for (const auto& c : diff.changed)
    keyed.append({double(views_[0]->indexOf.value(c.nodeA)),
                  Entry{Entry::Changed, c.nodeA, c.node,
                        QStringLiteral("~ ") + where(c.op, c.modulePath) + QStringLiteral(": ") +
                            c.what.join(QStringLiteral(", "))}});
  QSet<NodeId> added;
  for (const auto& d : diff.added) added.insert(d.node);
  double lastA = -1;
  for (const auto& n : views_[1]->nodes) {
    if (auto it = bToA_.constFind(n.id); it != bToA_.constEnd()) lastA = views_[0]->indexOf.value(*it);
    else if (added.contains(n.id))
      keyed.append(
          {lastA + 0.5, Entry{Entry::Added, kNoNode, n.id, QStringLiteral("+ ") + where(n.kind, n.modulePath)}});
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  entries_.clear();
  list_->clear();
  for (const auto& [key, e] : keyed) {
    entries_.append(e);
    auto* item = new QListWidgetItem(e.text, list_);
    item->setForeground(colourOf(e.kind));
    item->setToolTip(e.text);
  }

  int folded = 0;
  for (const auto& r : diff.removed) folded += r.foldedInto ? 1 : 0;
  legend_->setText(
      QStringLiteral("%1 &nbsp; %2 &nbsp; %3 &nbsp; <span style='color:#555'>%4</span>")
          .arg(swatch(colourOf(Entry::Added), tr("added %1").arg(diff.added.size())),
               swatch(colourOf(Entry::Removed), tr("removed %1 (%2 folded)").arg(diff.removed.size()).arg(folded)),
               swatch(colourOf(Entry::Changed), tr("changed %1").arg(diff.changed.size())),
               diff.equal() ? tr("the graphs are the same") : tr("F8 / Shift+F8 step through the differences")));
  titles_[0]->setText(titleA);
  titles_[1]->setText(titleB);
  syncing_ = true;  // each pane fits itself first; they are synced when the layouts arrive
  panes_[0]->setView(views_[0]);
  panes_[1]->setView(views_[1]);
  syncing_ = false;
  applyMarks();
  prev_->setEnabled(!entries_.isEmpty());
  next_->setEnabled(!entries_.isEmpty());
}

void DiffView::applyMarks() {
  QHash<NodeId, canvas::GraphScene::Mark> marks[2];
  for (const auto& e : entries_) {
    const QColor c = colourOf(e.kind);
    switch (e.kind) {
      case Entry::Added: marks[1][e.b] = {c, tr("added"), 3}; break;
      case Entry::Removed:
        marks[0][e.a] = {c, e.b == kNoNode ? tr("removed") : tr("removed, folded into node %1").arg(e.b), 3};
        break;
      case Entry::Changed: {
        const QString what = e.text.section(QStringLiteral(": "), -1);
        marks[0][e.a] = {c, tr("changed: %1").arg(what), 2};
        marks[1][e.b] = {c, tr("changed: %1").arg(what), 2};
        break;
      }
    }
  }
  // Per matched node, what a compare and profile measured.
  QHash<NodeId, QString> notes[2];
  for (auto it = aToB_.constBegin(); it != aToB_.constEnd(); ++it) {
    QStringList lines;
    if (auto e = metrics_.maxAbs.constFind(it.value()); e != metrics_.maxAbs.constEnd())
      lines << tr("max abs error vs A: %1").arg(*e, 0, 'g', 3);
    const auto ta = metrics_.selfMsA.constFind(it.key());
    const auto tb = metrics_.selfMsB.constFind(it.value());
    if (ta != metrics_.selfMsA.constEnd() && tb != metrics_.selfMsB.constEnd())
      lines << tr("self time A %1 ms · B %2 ms · B/A ×%3")
                   .arg(*ta, 0, 'f', 3).arg(*tb, 0, 'f', 3).arg(*ta > 0 ? *tb / *ta : 0.0, 0, 'f', 2);
    if (lines.isEmpty()) continue;
    notes[0][it.key()] = notes[1][it.value()] = lines.join(QLatin1Char('\n'));
  }
  for (int side = 0; side < 2; ++side) {
    panes_[side]->graphScene()->setMarks(marks[side]);
    panes_[side]->graphScene()->setNotes(notes[side]);
  }
}

void DiffView::setMetrics(const DiffMetrics& metrics) {
  metrics_ = metrics;
  applyMarks();
}

int DiffView::current() const { return list_->currentRow(); }

void DiffView::next() {
  if (entries_.isEmpty()) return;
  showEntry((current() + 1) % entries_.size());
}

void DiffView::previous() {
  if (entries_.isEmpty()) return;
  showEntry(current() <= 0 ? entries_.size() - 1 : current() - 1);
}

void DiffView::showEntry(int index) {
  if (index < 0 || index >= entries_.size()) return;
  if (list_->currentRow() != index) {
    const QSignalBlocker block(list_);
    list_->setCurrentRow(index);
  }
  const auto& e = entries_[index];
  // The side that has the node leads: the other pane follows its expansion and viewport.
  const NodeId ids[2] = {e.a, e.b};
  const int lead = e.a != kNoNode ? 0 : 1;
  leader_ = lead;
  syncing_ = true;  // each pane reveals its own node; then the other follows the leader
  for (int side = 0; side < 2; ++side) {
    if (ids[side] == kNoNode) {
      panes_[side]->selectNode(kNoNode);
      continue;
    }
    panes_[side]->revealNode(ids[side]);
    panes_[side]->selectNode(ids[side]);
  }
  syncing_ = false;
  follow(lead);
  Q_EMIT currentChanged(index);
}

void DiffView::follow(int from) {
  auto* src = panes_[from];
  auto* dst = panes_[1 - from];
  if (!views_[0] || !views_[1] || src->diagram().bounds.isEmpty()) return;
  syncing_ = true;
  dst->setTransform(src->transform());
  // Anchor on the drawn node (or collapsed module) nearest the centre of the leading pane, and put
  // its partner at the same place in the other one.
  const QPointF centre = src->mapToScene(src->viewport()->rect().center());
  QPointF target = centre;
  double best = std::numeric_limits<double>::max();
  QRectF anchor;
  const QGraphicsItem* partner = nullptr;
  auto consider = [&](const QRectF& rect, const QGraphicsItem* item) {
    if (!item) return;
    const QPointF d = rect.center() - centre;
    const double dist = d.x() * d.x() + d.y() * d.y();
    if (dist < best) {
      best = dist;
      anchor = rect;
      partner = item;
    }
  };
  const auto& partners = from == 0 ? aToB_ : bToA_;
  for (const auto& n : src->diagram().nodes)
    if (auto it = partners.constFind(n.id); it != partners.constEnd())
      consider(n.rect, dst->graphScene()->itemShowing(*it));
  for (const auto& g : src->diagram().groups) {
    if (g.expanded) continue;
    const QString& path = views_[from]->groups[g.group].path;
    for (const auto& other : views_[1 - from]->groups)
      if (other.path == path) {
        consider(g.rect, dst->graphScene()->groupItem(other.index));
        break;
      }
  }
  if (partner) {
    QRectF rect = partner->boundingRect();
    if (auto* node = dynamic_cast<const canvas::NodeItem*>(partner)) rect = node->shape().boundingRect();
    else if (auto* group = dynamic_cast<const canvas::GroupItem*>(partner)) rect = group->rect();
    target = rect.center() + (centre - anchor.center());
  }
  dst->centerOn(target);
  syncing_ = false;
}

void DiffView::followExpansion(int from) {
  if (syncing_ || !views_[0] || !views_[1]) return;
  QSet<QString> open;
  for (int g : panes_[from]->expansion()) open.insert(views_[from]->groups.value(g).path);
  core::layout::Expansion mapped{0};
  for (const auto& g : views_[1 - from]->groups)
    if (open.contains(g.path)) mapped.insert(g.index);
  syncing_ = true;
  panes_[1 - from]->setExpansion(mapped);
  syncing_ = false;
}

}  // namespace graft::ui
