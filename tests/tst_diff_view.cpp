// The diff view: resnet18 against its fold-conv-bn revision side by side, the differences
// outlined in their colours, stepped through with F8 / Shift+F8, the two panes kept in sync
// (zoom, pan, expand), opened from the History dock's selection and against a file.
#include "core/model/document.h"
#include "gui_support.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"
#include "ui/diff/diff_view.h"
#include "ui/edit_actions.h"
#include "ui/history_dock.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"
#include "ui/rewrite/rewrite_dock.h"

#include <QtCore/QTemporaryDir>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QScrollBar>
#include <QtTest/QtTest>

using graft::ui::DiffView;
using graft::ui::MainWindow;
using graft::ui::canvas::GraphCanvas;
using namespace graft::core;
using graft::test::waitLayout;

namespace {

bool waitPanes(DiffView* d) {
  // A pane's layout may start while the other one's arrives (expansion follows): wait until
  // neither has one in flight.
  for (int i = 0; i < 10; ++i) {
    if (!waitLayout(d->paneA()) || !waitLayout(d->paneB())) return false;
    QTest::qWait(20);
    if (!d->paneA()->layoutPending() && !d->paneB()->layoutPending()) return true;
  }
  return false;
}

// Node items drawn in `canvas` outlined in `colour`.
int itemsOutlined(GraphCanvas* canvas, const QColor& colour) {
  int n = 0;
  for (const auto& dn : canvas->diagram().nodes)
    if (const auto* m = canvas->graphScene()->markOf(dn.id); m && m->colour == colour && canvas->graphScene()->nodeItem(dn.id))
      ++n;
  return n;
}

int entriesOf(DiffView* d, DiffView::Entry::Kind kind) {
  return int(std::count_if(d->entries().begin(), d->entries().end(), [&](const auto& e) { return e.kind == kind; }));
}

// Where node `id`'s box is in the canvas's viewport, from the viewport's centre.
QPointF onScreen(GraphCanvas* c, model::NodeId id) {
  auto* item = c->graphScene()->nodeItem(id);
  return item ? QPointF(c->mapFromScene(item->shape().boundingRect().center()) - c->viewport()->rect().center())
              : QPointF(-1e9, -1e9);
}

// The matched node drawn nearest the centre of pane A.
model::NodeId nearestMatchedToCentre(DiffView* d) {
  auto* a = d->paneA();
  const QPointF centre = a->mapToScene(a->viewport()->rect().center());
  model::NodeId best = model::kNoNode;
  double bestDist = 1e18;
  for (const auto& n : a->diagram().nodes) {
    if (d->partnerInB(n.id) == model::kNoNode || !d->paneB()->graphScene()->nodeItem(d->partnerInB(n.id))) continue;
    const QPointF v = n.rect.center() - centre;
    if (v.x() * v.x() + v.y() * v.y() < bestDist) {
      bestDist = v.x() * v.x() + v.y() * v.y();
      best = n.id;
    }
  }
  return best;
}

// Pane B shows A's central node's partner at the same place in its viewport.
bool panesAligned(DiffView* d) {
  const auto id = nearestMatchedToCentre(d);
  if (id == model::kNoNode) return false;
  const QPointF pa = onScreen(d->paneA(), id), pb = onScreen(d->paneB(), d->partnerInB(id));
  if ((pa - pb).manhattanLength() > 4) {  // scroll positions are whole pixels on each side
    qWarning() << "A node" << id << "at" << pa << "B partner" << d->partnerInB(id) << "at" << pb;
    return false;
  }
  return true;
}

}  // namespace

class TstDiffView : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    qputenv("GRAFT_SESSION_DIR", sessions_.path().toUtf8());
    QCoreApplication::setOrganizationName(QStringLiteral("GraftTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_diff_view"));
  }

  void foldConvBnSideBySide() {
    MainWindow w;
    QVERIFY(graft::test::showModel(w, QStringLiteral("resnet18.pt")));
    auto* rewrites = w.findChild<graft::ui::RewriteDock*>();
    QVERIFY(rewrites);
    rewrites->applyRules({QStringLiteral("fold-conv-bn")});
    QCOMPARE(w.controller()->document()->currentIndex(), 1);
    QVERIFY(waitLayout(w.canvas()));

    DiffView* d = w.showDiff(0, 1);
    QVERIFY(d);
    QVERIFY(QTest::qWaitForWindowExposed(d));
    QVERIFY(waitPanes(d));
    // The list: 20 batch_norms removed (each folded), 20 convolutions changed, nothing added.
    QCOMPARE(entriesOf(d, DiffView::Entry::Removed), 20);
    QCOMPARE(entriesOf(d, DiffView::Entry::Changed), 20);
    QCOMPARE(entriesOf(d, DiffView::Entry::Added), 0);
    QCOMPARE(d->list()->count(), 40);
    for (const auto& e : d->entries())
      if (e.kind == DiffView::Entry::Removed) QVERIFY2(e.b != model::kNoNode, qPrintable(e.text));  // folded into B's conv

    // Expanding everything in A opens the same modules in B.
    d->paneA()->expandAll();
    QVERIFY(waitPanes(d));
    const auto* viewB = d->paneB()->graphScene()->view();
    for (const auto& g : viewB->groups) QVERIFY2(d->paneB()->expansion().contains(g.index), qPrintable(g.path));
    // The coloured boxes: A has the 20 removed and 20 changed nodes, B the 20 changed ones.
    const QColor removed = DiffView::colourOf(DiffView::Entry::Removed);
    const QColor changed = DiffView::colourOf(DiffView::Entry::Changed);
    QCOMPARE(itemsOutlined(d->paneA(), removed), 20);
    QCOMPARE(itemsOutlined(d->paneA(), changed), 20);
    QCOMPARE(itemsOutlined(d->paneB(), changed), 20);
    QCOMPARE(itemsOutlined(d->paneB(), removed), 0);
    QCOMPARE(itemsOutlined(d->paneB(), DiffView::colourOf(DiffView::Entry::Added)), 0);
    QCOMPARE(d->paneA()->transform(), d->paneB()->transform());

    // F8 / Shift+F8 step through the list; each entry is selected on both sides.
    d->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(d));
    QTest::keyClick(d, Qt::Key_F8);
    QCOMPARE(d->current(), 0);
    QTest::keyClick(d, Qt::Key_F8);
    QCOMPARE(d->current(), 1);
    const auto& second = d->entries()[1];
    QCOMPARE(d->paneA()->graphScene()->selectedNode(), second.a);
    QCOMPARE(d->paneB()->graphScene()->selectedNode(), second.b);
    QVERIFY(waitPanes(d));
    QVERIFY(panesAligned(d));
    QTest::keyClick(d, Qt::Key_F8, Qt::ShiftModifier);
    QCOMPARE(d->current(), 0);
    QTest::keyClick(d, Qt::Key_F8, Qt::ShiftModifier);
    QCOMPARE(d->current(), d->list()->count() - 1);  // wraps around
    const auto& last = d->entries().last();
    QCOMPARE(d->paneA()->graphScene()->selectedNode(), last.a);
    QVERIFY(waitPanes(d));

    // Zoom and pan in either pane move the other.
    d->paneA()->zoomBy(1.25);
    QCOMPARE(d->paneA()->transform(), d->paneB()->transform());
    d->paneA()->verticalScrollBar()->setValue(d->paneA()->verticalScrollBar()->value() - 300);
    QVERIFY(panesAligned(d));
    d->paneB()->zoomBy(0.8);
    QCOMPARE(d->paneA()->transform(), d->paneB()->transform());
    // Collapsing in B collapses A.
    d->paneB()->collapseAll();
    QVERIFY(waitPanes(d));
    QCOMPARE(d->paneA()->expansion(), graft::core::layout::Expansion{0});
    QCOMPARE(d->paneA()->transform(), d->paneB()->transform());
    // Collapsed, a module holding a difference is outlined in its colour.
    const auto* viewA = d->paneA()->graphScene()->view();
    int layer1 = -1;
    for (const auto& g : viewA->groups)
      if (g.path == QStringLiteral("layer1")) layer1 = g.index;
    QVERIFY(layer1 > 0);
    QVERIFY(d->paneA()->graphScene()->groupMark(layer1));
  }

  void historySelectionAndFile() {
    MainWindow w;
    QVERIFY(graft::test::showModel(w, QStringLiteral("resnet18.pt")));
    w.findChild<graft::ui::RewriteDock*>()->applyRules({QStringLiteral("fold-conv-bn")});
    QCOMPARE(w.controller()->document()->count(), 2);
    // Two revisions selected in the History dock → Diff Selected.
    auto* history = w.parts().docks->history;
    auto* button = history->findChild<QPushButton*>(QStringLiteral("historyDiffButton"));
    QVERIFY(button && !button->isEnabled());
    history->list()->clearSelection();
    history->list()->item(0)->setSelected(true);
    history->list()->item(1)->setSelected(true);
    QVERIFY(button->isEnabled());
    button->click();
    DiffView* d = w.diffView();
    QVERIFY(d && d->isVisible());
    QCOMPARE(d->list()->count(), 40);
    QVERIFY(waitPanes(d));

    // Against a file: the model as loaded is the same as revision 0, so nothing differs.
    w.controller()->setCurrent(0);
    d = w.showDiffWithFile(graft::test::testdata(QStringLiteral("resnet18.pt")));
    QVERIFY(d);
    QCOMPARE(d->list()->count(), 0);
    QVERIFY(waitPanes(d));
    QCOMPARE(itemsOutlined(d->paneA(), DiffView::colourOf(DiffView::Entry::Removed)), 0);
    // A file that is not a model leaves the view alone and says why.
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.pt"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a model");
    f.close();
    QTimer::singleShot(200, [] {
      if (auto* box = QApplication::activeModalWidget()) box->close();
    });
    QVERIFY(!w.showDiffWithFile(bad));
  }

  // Per matched node, the compare's error and both self times with their ratio reach the tooltip.
  void metricsInTooltips() {
    MainWindow w;
    QVERIFY(graft::test::showModel(w, QStringLiteral("resnet18.pt")));
    w.findChild<graft::ui::RewriteDock*>()->applyRules({QStringLiteral("fold-conv-bn")});
    DiffView* d = w.showDiff(0, 1);
    QVERIFY(waitPanes(d));
    d->paneA()->expandAll();
    QVERIFY(waitPanes(d));
    const auto& e = d->entries().first();
    QCOMPARE(e.kind, DiffView::Entry::Changed);
    graft::ui::DiffMetrics m;
    m.maxAbs.insert(e.b, 2.5e-6);
    m.selfMsA.insert(e.a, 0.4);
    m.selfMsB.insert(e.b, 0.3);
    d->setMetrics(m);
    auto* item = d->paneB()->graphScene()->nodeItem(e.b);
    QVERIFY(item);
    const QString tip = d->paneB()->graphScene()->toolTipAt(item->shape().boundingRect().center());
    QVERIFY2(tip.contains(QStringLiteral("max abs error vs A: 2.5e-06")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("A 0.400 ms · B 0.300 ms · B/A ×0.75")), qPrintable(tip));
    const QString tipA = d->paneA()->graphScene()->toolTipAt(d->paneA()->graphScene()->nodeItem(e.a)->shape().boundingRect().center());
    QVERIFY2(tipA.contains(QStringLiteral("changed: constant weight")), qPrintable(tipA));
  }

  // For people: the diff view of resnet18 before/after fold-conv-bn, stepped to a fold, and a
  // BERT with its layers folded into one ×N box, at 1366×768 (GRAFT_SCREENSHOT_BERT may name a
  // BERT with more layers than the zoo's two).
  void screenshots() {
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    MainWindow w;
    QVERIFY(graft::test::showModel(w, QStringLiteral("resnet18.pt")));
    w.findChild<graft::ui::RewriteDock*>()->applyRules({QStringLiteral("fold-conv-bn")});
    DiffView* d = w.showDiff(0, 1);
    d->resize(1366, 768);
    QVERIFY(waitPanes(d));
    QVERIFY(d->grab().save(out + QStringLiteral("/diff_resnet18_collapsed.png")));
    d->showEntry(3);  // layer1.0's bn1, folded into its conv1
    QVERIFY(waitPanes(d));
    d->paneA()->resetTransform();
    d->showEntry(3);
    QVERIFY(waitPanes(d));
    QVERIFY(d->grab().save(out + QStringLiteral("/diff_resnet18_fold.png")));

    const QString bert = qEnvironmentVariable("GRAFT_SCREENSHOT_BERT", graft::test::testdata(QStringLiteral("zoo/bert.pt")));
    MainWindow b;
    b.resize(1366, 768);
    b.show();
    QVERIFY(b.openFile(bert));
    QVERIFY(waitLayout(b.canvas()));
    const auto* v = b.view();
    graft::core::layout::Expansion open{0};
    for (const auto& g : v->groups)
      if (g.path == QStringLiteral("encoder") || g.path == QStringLiteral("encoder.layer"))
        open.insert(g.index);
    b.canvas()->setExpansion(open);
    QVERIFY(waitLayout(b.canvas()));
    // The canvas and the module tree only, so that the window fits 1366×768.
    for (auto* dock : b.findChildren<QDockWidget*>())
      if (dock->objectName() != QStringLiteral("modulesDock")) dock->hide();
    b.resize(1366, 768);
    QTest::qWait(50);
    b.canvas()->resetTransform();  // 1:1, readable
    b.canvas()->centerOn(b.canvas()->diagram().bounds.center());
    QVERIFY(b.grab().save(out + QStringLiteral("/bert_layers_folded.png")));
  }

 private:
  QTemporaryDir sessions_;
};

QTEST_MAIN(TstDiffView)
#include "tst_diff_view.moc"
