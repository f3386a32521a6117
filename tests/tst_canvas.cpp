// The canvas in the main window: layout arrives from the worker, +/- clicks expand and collapse,
// find reveals hidden nodes, selection syncs canvas / module tree / IR / inspector, edge
// tooltips carry the tensor type, exports write valid SVG and PNG, and screenshots for people.
#include "core/layout/labels.h"
#include "core/layout/layout_engine.h"
#include "gui_support.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"
#include "ui/canvas/minimap.h"
#include "ui/find_bar.h"
#include "ui/inspector.h"
#include "ui/ir_view.h"
#include "ui/export_actions.h"
#include "ui/main_window.h"
#include "ui/module_tree.h"
#include "ui/render/diagram_painter.h"
#include "ui/render/edge_labels.h"

#include <QtCore/QXmlStreamReader>
#include <QtGui/QImage>
#include <QtSvg/QSvgRenderer>
#include <QtTest/QtTest>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>

using graft::ui::MainWindow;
using graft::ui::canvas::GraphCanvas;
using namespace graft::core;

using graft::test::waitLayout;

namespace {

int groupByPath(const model::GraphView* v, const QString& path) {
  for (const auto& g : v->groups)
    if (g.path == path) return g.index;
  return -1;
}

QPoint viewPos(GraphCanvas* c, QPointF scenePos) { return c->mapFromScene(scenePos); }

}  // namespace

class TstCanvas : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("GraftTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_canvas"));
  }

  void showsCollapsedThenToggles() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    const auto* v = w.view();
    auto* scene = c->graphScene();
    // Top level: the root's own ops and one box per child module. layer2–4 share one design at
    // different widths: not repeats, so each has its box.
    QCOMPARE(int(c->diagram().groups.size()), 1 + int(v->groups[0].children.size()));
    for (const char* stage : {"layer2", "layer3", "layer4"}) QVERIFY(scene->groupItem(groupByPath(v, QLatin1String(stage))));
    const int layer1 = groupByPath(v, QStringLiteral("layer1"));
    QVERIFY(layer1 > 0);
    auto* box = scene->groupItem(layer1);
    QVERIFY(box && !box->expanded());
    // A click on the + toggle expands it.
    c->centerOn(box);
    QTest::mouseClick(c->viewport(), Qt::LeftButton, {}, viewPos(c, box->rect().topLeft() + QPointF(10, 10)));
    QVERIFY(c->layoutPending());
    QVERIFY(waitLayout(c));
    box = scene->groupItem(layer1);
    QVERIFY(box && box->expanded());
    QVERIFY(scene->groupItem(groupByPath(v, QStringLiteral("layer1.0"))));
    // ...and a click on the - collapses it again.
    c->centerOn(box->rect().topLeft());
    QTest::mouseClick(c->viewport(), Qt::LeftButton, {}, viewPos(c, box->rect().topLeft() + QPointF(10, 10)));
    QVERIFY(waitLayout(c));
    QVERIFY(!scene->groupItem(layer1)->expanded());
    QVERIFY(!scene->groupItem(groupByPath(v, QStringLiteral("layer1.0"))));
  }

  // Repeated sibling modules are one "×N" box; its toggle lists them again.
  void repeatsFoldIntoOneBox() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("vit_b_16.pt"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    const auto* v = w.view();
    const int layers = groupByPath(v, QStringLiteral("encoder.layers"));
    QVERIFY(layers > 0);
    QCOMPARE(v->groups[layers].children.size(), 12);
    c->setExpansion({0, groupByPath(v, QStringLiteral("encoder")), layers});
    QVERIFY(waitLayout(c));
    const auto drawnUnder = [&](int parent) {
      QVector<const layout::DiagramGroup*> out;
      for (const auto& g : c->diagram().groups)
        if (v->groups[g.group].parent == parent) out << &g;
      return out;
    };
    const int foldedCount = int(c->diagram().groups.size());
    auto boxes = drawnUnder(layers);
    QCOMPARE(boxes.size(), 1);
    QCOMPARE(boxes.front()->repeat, 12);
    QCOMPARE(boxes.front()->label.front(), QStringLiteral("encoder.layers.encoder_layer_0\u201311 \u00d712"));
    // Every node of layer 5 is shown by that one box.
    model::NodeId inLayer5 = model::kNoNode;
    for (const auto& n : v->nodes)
      if (n.modulePath.startsWith(QStringLiteral("encoder.layers.encoder_layer_5.")) && inLayer5 == model::kNoNode) inLayer5 = n.id;
    QVERIFY(inLayer5 != model::kNoNode);
    QCOMPARE(c->graphScene()->itemShowing(inLayer5), c->graphScene()->groupItem(boxes.front()->group));
    // ...and carries its marks (a rule match, a divergence) inside any of the twelve.
    c->graphScene()->setMarks({{inLayer5, {Qt::red, QStringLiteral("here"), 1}}});
    QVERIFY(c->graphScene()->groupMark(boxes.front()->group));
    // Its toggle unfolds it: twelve boxes, eleven more items drawn.
    c->toggleGroup(boxes.front()->group);
    QVERIFY(waitLayout(c));
    boxes = drawnUnder(layers);
    QCOMPARE(boxes.size(), 12);
    for (const auto* b : boxes) QVERIFY(b->label.isEmpty() && !b->expanded);
    QCOMPARE(int(c->diagram().groups.size()), foldedCount + 11);
    // Revealing a node inside a folded repeat unfolds it; switching folding off shows all.
    c->collapseAll();
    QVERIFY(waitLayout(c));
    QCOMPARE(c->folds().size(), 11);
    c->revealNode(inLayer5);
    QVERIFY(waitLayout(c));
    QVERIFY(c->graphScene()->nodeItem(inLayer5));
    QVERIFY(c->folds().isEmpty());
  }

  void findRevealsAndSelectionSyncs() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    const auto* v = w.view();
    auto* find = w.findChild<graft::ui::FindBar*>();
    QVERIFY(find && find->isHidden());
    QTest::keyClick(&w, Qt::Key_F, Qt::ControlModifier);
    QVERIFY(find->isVisible());
    // A module path deep inside a collapsed group: every conv of layer3.1.
    QCOMPARE(find->search(QStringLiteral("layer3.1.conv")), 2);
    const auto hit = find->matches().front();
    QCOMPARE(v->node(hit)->modulePath, QStringLiteral("layer3.1.conv1"));
    QCOMPARE(w.selectedNode(), hit);
    QVERIFY(waitLayout(c));
    QVERIFY(c->graphScene()->nodeItem(hit));  // revealed: its groups were expanded
    for (int g = v->node(hit)->group; g >= 0; g = v->groups[g].parent) QVERIFY(c->expansion().contains(g));
    find->next();
    QCOMPARE(v->node(w.selectedNode())->modulePath, QStringLiteral("layer3.1.conv2"));
    find->previous();
    QCOMPARE(w.selectedNode(), hit);
    // By op, and by value name.
    QCOMPARE(find->search(QStringLiteral("max_pool2d")), 1);
    const auto& named = v->nodes.at(7);
    QVERIFY(find->search(named.outputs.front().name) >= 1);
    QVERIFY(find->matches().contains(named.id));
    QCOMPARE(find->search(QStringLiteral("no such thing")), 0);
    QCOMPARE(find->search(QStringLiteral("layer3.1.conv")), 2);
    // The inspector, IR view and module tree follow.
    auto* inspector = w.findChild<graft::ui::Inspector*>();
    QCOMPARE(inspector->node(), hit);
    QVERIFY(inspector->toPlainText().contains(QStringLiteral("_convolution")));
    QVERIFY(inspector->toPlainText().contains(QStringLiteral("layer3.1.conv1")));
    QVERIFY(inspector->toPlainText().contains(QStringLiteral("[256, 256, 3, 3]")));  // the folded weight
    auto* ir = w.findChild<graft::ui::IrView*>(QStringLiteral("irView"));
    QCOMPARE(ir->textCursor().blockNumber(), v->node(hit)->irLine);
    // Clicking a node box on the canvas selects it everywhere.
    QVERIFY(waitLayout(c));
    const auto other = v->groups[0].nodes.front();  // a top-level op, always drawn
    auto* item = c->graphScene()->nodeItem(other);
    QVERIFY(item);
    c->centerOn(item);
    QSignalSpy sel(&w, &MainWindow::selectionChanged);
    QTest::mouseClick(c->viewport(), Qt::LeftButton, {}, viewPos(c, item->boundingRect().center()));
    QCOMPARE(w.selectedNode(), other);
    QCOMPARE(sel.count(), 1);
    QCOMPARE(inspector->node(), other);
    QCOMPARE(ir->textCursor().blockNumber(), v->node(other)->irLine);
    QCOMPARE(w.findChild<graft::ui::ModuleTree*>()->currentItem()->text(0), v->node(other)->op);
    QCOMPARE(c->graphScene()->selectedNode(), other);
  }

  // Zoomed out to the overview (no items), a click still selects the box under the cursor and a
  // double-click zooms in there to reading size.
  void overviewClicksSelectAndZoom() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    c->expandAll();
    QVERIFY(waitLayout(c));
    c->resetTransform();
    c->zoomBy(0.1);
    c->updateDetailMode();
    QVERIFY(!c->graphScene()->detailVisible());
    // The biggest box on screen, so the click lands inside it at this zoom.
    const auto& nodes = c->diagram().nodes;
    const auto biggest = *std::max_element(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
      return a.rect.width() * a.rect.height() < b.rect.width() * b.rect.height();
    });
    c->centerOn(biggest.rect.center());
    // A mark (rule match, divergence) is still visible out here: the box is filled in its colour.
    const QColor markColour(0x00, 0xaa, 0x44);
    c->graphScene()->setMarks({{biggest.id, {markColour, QStringLiteral("test"), 1}}});
    const QImage shot = c->viewport()->grab().toImage();
    QCOMPARE(shot.pixelColor(viewPos(c, biggest.rect.center())), markColour);
    QTest::mouseClick(c->viewport(), Qt::LeftButton, {}, viewPos(c, biggest.rect.center()));
    QCOMPARE(w.selectedNode(), biggest.id);
    QTest::mouseDClick(c->viewport(), Qt::LeftButton, {}, viewPos(c, biggest.rect.center()));
    QCOMPARE(c->zoom(), 1.0);
    c->updateDetailMode();
    QVERIFY(c->graphScene()->detailVisible());
    QVERIFY(c->mapToScene(c->viewport()->rect()).boundingRect().contains(biggest.rect.center()));
  }

  void cancelKeepsWhatIsShown() {
    MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    const auto before = c->expansion();
    const int groupsBefore = int(c->diagram().groups.size());
    c->expandAll();
    QVERIFY(c->layoutPending());
    c->setFocus();
    QTest::keyClick(c, Qt::Key_Escape);
    QVERIFY(!c->layoutPending());
    QCOMPARE(c->expansion(), before);
    QTest::qWait(300);  // a result that still arrives is dropped
    QCOMPARE(int(c->diagram().groups.size()), groupsBefore);
  }

  void edgeTooltipShowsTensorType() {
    MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* c = w.canvas();
    c->expandAll();
    QVERIFY(waitLayout(c));
    const auto& d = c->diagram();
    QVERIFY(!d.edges.isEmpty());
    const auto& e = d.edges.front();
    // The middle of the route's first Bezier segment lies on the path.
    const QPointF mid = e.points.size() >= 4 ? (e.points[0] + 3 * e.points[1] + 3 * e.points[2] + e.points[3]) / 8 : e.points[0];
    const QString tip = c->graphScene()->toolTipAt(mid);
    const auto& ve = w.view()->edges[e.edge];
    QVERIFY(!ve.type.isEmpty());
    QVERIFY2(tip.contains(ve.type), qPrintable(tip));
  }

  void zoomFitAndLevelOfDetail() {
    MainWindow w;
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    const double z = c->zoom();
    c->setFocus();
    QTest::keyClick(c, Qt::Key_Equal, Qt::ControlModifier);
    QVERIFY(c->zoom() > z * 1.1);
    QTest::keyClick(c, Qt::Key_Minus, Qt::ControlModifier);
    QVERIFY(qAbs(c->zoom() - z) < 1e-6);
    c->zoomBy(0.1);
    QTest::keyClick(c, Qt::Key_F);
    QVERIFY(qAbs(c->zoom() - z) < 1e-6);  // F fits again
    // Zoomed far out the boxes are drawn without text: fewer distinct colours in the picture.
    auto distinct = [&](double zoom) {
      c->resetTransform();
      c->scale(zoom, zoom);
      QImage img(c->viewport()->size(), QImage::Format_RGB32);
      img.fill(Qt::white);
      QPainter p(&img);
      c->render(&p, QRectF(), c->viewport()->rect());
      QSet<QRgb> colours;
      for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2) colours.insert(img.pixel(x, y));
      return colours.size();
    };
    QVERIFY(distinct(1.0) > distinct(0.2));
    auto* minimap = w.findChild<graft::ui::canvas::Minimap*>();
    QVERIFY(minimap);
  }

  void exportsSvgPngDot() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    QVERIFY(waitLayout(w.canvas()));
    QTemporaryDir dir;
    const QString svg = dir.filePath(QStringLiteral("d.svg")), png = dir.filePath(QStringLiteral("d.png")),
                  dot = dir.filePath(QStringLiteral("d.dot"));
    QVERIFY(w.exports()->exportSvg(svg));
    QVERIFY(w.exports()->exportPng(png));
    QVERIFY(w.exports()->exportDot(dot));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&f);
    int texts = 0;
    bool sawSvg = false;
    while (!xml.atEnd()) {
      xml.readNext();
      if (xml.isStartElement() && xml.name() == QLatin1String("svg")) sawSvg = true;
      if (xml.isStartElement() && xml.name() == QLatin1String("text")) ++texts;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(sawSvg);
    QVERIFY(texts >= int(w.canvas()->diagram().nodes.size()));  // every box has a label
    QVERIFY(QSvgRenderer(svg).isValid());
    QImage img(png);
    QVERIFY(!img.isNull());
    QVERIFY(img.width() > 100 && img.height() > 100);
    QFile d(dot);
    QVERIFY(d.open(QIODevice::ReadOnly));
    QVERIFY(d.readAll().startsWith("digraph"));
  }

  void cliLayout() {
    QTemporaryDir dir;
    const QString svg = dir.filePath(QStringLiteral("c.svg")), png = dir.filePath(QStringLiteral("c.png"));
    const auto r = graft::test::runCli({QStringLiteral("layout"), graft::test::testdata(QStringLiteral("resnet18.pt")),
                                        QStringLiteral("--expand"), QStringLiteral("all"), QStringLiteral("--svg"), svg,
                                        QStringLiteral("--png"), png, QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const auto j = r.json();
    QCOMPARE(j.value("nodes").toInt(), graft::test::reference(QStringLiteral("resnet18")).value("ops").toInt());
    QVERIFY(j.value("edges").toInt() > 0);
    QVERIFY(j.contains("layout_ms"));
    QVERIFY(QSvgRenderer(svg).isValid());
    QVERIFY(!QImage(png).isNull());
    const auto top = graft::test::runCli({QStringLiteral("layout"), QStringLiteral("--sample"), QStringLiteral("cnn"), QStringLiteral("--json")});
    QCOMPARE(top.exitCode, 0);
    QVERIFY(top.json().value("groups").toInt() > 1);
    QCOMPARE(top.json().value("expanded_groups").toInt(), 1);  // default: the top level
    const auto one = graft::test::runCli({QStringLiteral("layout"), graft::test::testdata(QStringLiteral("resnet18.pt")),
                                          QStringLiteral("--expand"), QStringLiteral("1"), QStringLiteral("--json")});
    QCOMPARE(one.exitCode, 0);
    // resnet18's root and its 10 child modules (conv1 ... fc) are open, the blocks inside layerN are not.
    QCOMPARE(one.json().value("expanded_groups").toInt(), 11);
    const auto bad = graft::test::runCli({QStringLiteral("layout"), QStringLiteral("--sample"), QStringLiteral("cnn"),
                                          QStringLiteral("--expand"), QStringLiteral("lots")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("--expand"));
  }

  // Hand-made crowding: two routes leaving one port with the same shape are labelled once, a
  // label never lands on a title bar, a box or another label, and a route with no free spot
  // goes without.
  void edgeLabelsAvoidEachOther() {
    using graft::ui::canvas::EdgeLabelRequest;
    auto line = [](QPointF a, QPointF b) {
      QPainterPath p(a);
      p.lineTo(b);
      return p;
    };
    const QString shape = QStringLiteral("1×64×56×56");
    QVector<EdgeLabelRequest> requests{
        {line({100, 0}, {100, 200}), shape, QStringLiteral("7:0")},
        {line({100, 0}, {100, 200}), shape, QStringLiteral("7:0")},  // the same value again
        {line({104, 0}, {104, 200}), QStringLiteral("1×128×28×28"), QStringLiteral("8:0")},
        {line({300, 0}, {300, 200}), shape, QStringLiteral("9:0")},
        {line({500, 90}, {500, 110}), shape, QStringLiteral("10:0")},  // boxed in
    };
    const QRectF title(250, 95, 200, 20), box(290, 40, 80, 30), cage(380, 60, 240, 80);
    const auto placed = graft::ui::canvas::placeEdgeLabels(requests, {title, box, cage});
    QCOMPARE(placed.size(), requests.size());
    QVERIFY(!placed[0].isNull());
    QVERIFY(placed[1].isNull());
    QVERIFY(!placed[2].isNull());
    QVERIFY(!placed[3].isNull());
    QVERIFY(placed[4].isNull());
    QCOMPARE(placed[0].center().y(), 100.0);  // the middle was free
    for (int i = 0; i < placed.size(); ++i) {
      if (placed[i].isNull()) continue;
      QCOMPARE(placed[i].size(), graft::ui::canvas::edgeLabelSize(requests[i].text));
      for (const QRectF& r : {title, box, cage}) QVERIFY(!placed[i].intersects(r));
      for (int j = i + 1; j < placed.size(); ++j) QVERIFY(!placed[i].intersects(placed[j]));
    }
    // Inside an area: nothing sticks out of it.
    const QRectF area(0, 0, 160, 200);
    const auto inside = graft::ui::canvas::placeEdgeLabels({requests[0]}, {}, area);
    QVERIFY(!inside[0].isNull() && area.contains(inside[0]));
    // A frame border beside the middle: the label takes the other side rather than straddle it.
    const QRectF border(130, 0, 1, 200);
    const auto clear = graft::ui::canvas::placeEdgeLabels({requests[0]}, {}, {}, {border});
    QVERIFY(!clear[0].isNull() && !clear[0].intersects(border));
    QCOMPARE(clear[0].center().y(), 100.0);
    QVERIFY(clear[0].right() < 100);
  }

  // Placement stays a small part of building a big scene: 20,000 labelled routes in a grid of
  // boxes, most of them crowded.
  void edgeLabelPlacementIsFast() {
    model::GraphView view;
    layout::Diagram d;
    for (int i = 0; i < 20000; ++i) {
      const QPointF at((i % 100) * 160.0, (i / 100) * 90.0);
      d.nodes << layout::DiagramNode{model::NodeId(i + 1), QRectF(at, QSizeF(110, 40))};
      model::ViewEdge e;
      e.from = model::NodeId(i + 1);
      e.type = QStringLiteral("float32 [1, 64, 56, 56]");
      view.edges << e;
      layout::DiagramEdge route;
      route.edge = i;
      route.points = {at + QPointF(55, 40), at + QPointF(55, 55), at + QPointF(70, 75), at + QPointF(55 + (i % 3) * 20, 90)};
      d.edges << route;
    }
    d.bounds = QRectF(0, 0, 100 * 160, 200 * 90);
    QVector<QPainterPath> paths;
    for (const auto& route : d.edges) paths << graft::ui::canvas::edgePath(route);
    QElapsedTimer clock;
    clock.start();
    const auto placed = graft::ui::canvas::placeDiagramEdgeLabels(d, view, paths);
    const qint64 ms = clock.elapsed();
    const auto shown = std::count_if(placed.begin(), placed.end(), [](const QRectF& r) { return !r.isNull(); });
    qInfo("20,000 routes: %lld labels placed in %lld ms", qlonglong(shown), ms);
    QVERIFY(shown > 0);
    QVERIFY(ms < 2000);
  }

  // resnet18 fully expanded: no two shape labels overlap, none covers a title bar or a box, and
  // most values leaving a port still say their shape.
  void edgeLabelsDoNotOverlapOnResnet18() {
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    // The exported program: its values carry shapes (a TorchScript file's mostly do not).
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("pt2/resnet18.pt2"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    c->expandAll();
    QVERIFY(waitLayout(c));
    const auto& d = c->diagram();
    QVector<QRectF> titles, boxes;
    for (const auto& g : d.groups)
      if (g.expanded) titles << QRectF(g.rect.left(), g.rect.top(), g.rect.width(), layout::kTitleHeight);
      else boxes << g.rect;
    for (const auto& n : d.nodes) boxes << n.rect;
    for (const auto& t : d.terminals) boxes << t.rect;
    QVector<QRectF> shown;
    QSet<QString> labelled, said;  // (source port, shape) pairs with a label / shown
    int labelledRoutes = 0;
    for (QGraphicsItem* item : c->graphScene()->items()) {
      auto* e = dynamic_cast<graft::ui::canvas::EdgeItem*>(item);
      if (!e || e->label().isEmpty()) continue;
      ++labelledRoutes;
      const auto& ve = w.view()->edges[d.edges[e->route()].edge];
      const QString pair = QStringLiteral("%1:%2 %3 %4").arg(ve.from).arg(ve.fromPort).arg(ve.value, e->label());
      labelled << pair;
      if (e->labelRect().isNull()) continue;
      said << pair;
      shown << e->labelRect();
      QVERIFY(e->boundingRect().contains(e->labelRect()));
    }
    for (int i = 0; i < shown.size(); ++i) {
      for (int j = i + 1; j < shown.size(); ++j) QVERIFY2(!shown[i].intersects(shown[j]), "two labels overlap");
      for (const QRectF& t : titles) QVERIFY2(!shown[i].intersects(t), "a label covers a group title");
      for (const QRectF& b : boxes) QVERIFY2(!shown[i].intersects(b), "a label covers a box");
    }
    qInfo("resnet18 expanded: %lld labels shown for %lld labelled values (%d labelled routes)", qlonglong(shown.size()),
          qlonglong(labelled.size()), labelledRoutes);
    QVERIFY(!shown.isEmpty());
    QVERIFY2(said.size() * 10 >= labelled.size() * 8, "fewer than 80% of the values say their shape");
    // The exporters place labels the same way.
    QVector<QPainterPath> paths;
    for (const auto& route : d.edges) paths << graft::ui::canvas::edgePath(route);
    const auto placed = graft::ui::canvas::placeDiagramEdgeLabels(d, *w.view(), paths);
    QCOMPARE(int(std::count_if(placed.begin(), placed.end(), [](const QRectF& r) { return !r.isNull(); })), int(shown.size()));
    if (const QString dir = qEnvironmentVariable("GRAFT_SCREENSHOT_DIR"); !dir.isEmpty()) {
      // The scene at 1:1, 1366×768 from layer1 down (residuals and a downsample branch).
      const int layer1 = groupByPath(w.view(), QStringLiteral("layer1"));
      QVERIFY(layer1 > 0);
      const QRectF top = c->graphScene()->groupItem(layer1)->rect();
      QImage shot(1366, 768, QImage::Format_RGB32);
      shot.fill(Qt::white);
      QPainter p(&shot);
      p.setRenderHint(QPainter::Antialiasing);
      p.setRenderHint(QPainter::TextAntialiasing);
      c->graphScene()->render(&p, QRectF(shot.rect()), QRectF(d.bounds.center().x() - 683, top.top() - 20, 1366, 768));
      p.end();
      QVERIFY(shot.save(QDir(dir).filePath(QStringLiteral("edge_labels_resnet18.png"))));
    }
  }

  // A heatmap's legend has a strip of its own below the drawing: it never lies over the
  // viewport (so over no node), and it is as wide as its title, which is never cut.
  void heatLegendCoversNoNode() {
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    for (auto* dock : w.findChildren<QDockWidget*>()) dock->hide();  // the canvas as wide as the window
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    QHash<graft::core::model::NodeId, double> heat;
    double v = 0;
    for (const auto& n : w.view()->nodes) heat.insert(n.id, v += 1);
    const QString title = QStringLiteral("SQNR against the float model, module by module (red: lowest, grey: not paired)");
    c->setErrorHeat(heat, title, QStringLiteral("≥ 80 dB"), QStringLiteral("12.5 dB"));
    QApplication::processEvents();
    auto* legend = c->heatLegend();
    QVERIFY(legend && legend->isVisible());
    QVERIFY2(!legend->geometry().intersects(c->viewport()->geometry()),
             qPrintable(QStringLiteral("legend %1,%2 %3x%4, viewport bottom %5").arg(legend->x()).arg(legend->y())
                            .arg(legend->width()).arg(legend->height()).arg(c->viewport()->geometry().bottom())));
    QVERIFY2(c->rect().contains(legend->geometry()),
             qPrintable(QStringLiteral("legend %1,%2 %3x%4 in a %5x%6 canvas").arg(legend->x()).arg(legend->y())
                            .arg(legend->width()).arg(legend->height()).arg(c->width()).arg(c->height())));
    QVERIFY(legend->width() >= legend->fontMetrics().horizontalAdvance(title) + 16);
    // Every node drawn after fitting lies in the viewport, above the legend.
    c->fitToWindow();
    QApplication::processEvents();
    for (const auto& n : c->diagram().nodes) {
      const QRect at = c->mapFromScene(n.rect).boundingRect();
      QVERIFY(!legend->geometry().intersects(at.translated(c->viewport()->pos())));
    }
    // Without a heatmap the strip goes: the drawing takes the height back.
    const int withLegend = c->viewport()->height();
    c->setHeat({});
    QApplication::processEvents();
    QVERIFY(!legend->isVisible());
    QVERIFY(c->viewport()->height() > withLegend);
  }

  void screenshots() {
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    MainWindow w;
    QVERIFY(graft::test::showModel(w, QStringLiteral("resnet18.pt")));
    QVERIFY(w.grab().save(out + QStringLiteral("/canvas_resnet18_collapsed.png")));
    w.canvas()->expandAll();
    QVERIFY(waitLayout(w.canvas()));
    w.canvas()->fitToWindow();
    w.selectNode(w.view()->nodes.at(5).id);
    QVERIFY(w.grab().save(out + QStringLiteral("/canvas_resnet18_expanded.png")));
    // Zoomed to readable size at the top of the graph.
    w.canvas()->resetTransform();
    w.canvas()->centerOn(w.canvas()->diagram().bounds.center().x(), 300);
    QVERIFY(w.grab().save(out + QStringLiteral("/canvas_resnet18_zoom.png")));
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("densenet121.pt"))));
    QVERIFY(waitLayout(w.canvas()));
    QVERIFY(w.grab().save(out + QStringLiteral("/canvas_densenet121_collapsed.png")));
    w.canvas()->expandAll();
    QVERIFY(waitLayout(w.canvas()));
    QVERIFY(w.canvas()->diagram().layoutMs < 30000);
    w.canvas()->fitToWindow();
    QVERIFY(w.grab().save(out + QStringLiteral("/canvas_densenet121_expanded.png")));
    // The first dense block at 1:1.
    const int block = groupByPath(w.view(), QStringLiteral("features.denseblock1"));
    QVERIFY(block > 0);
    w.canvas()->resetTransform();
    const QRectF r = w.canvas()->graphScene()->groupItem(block)->rect();
    w.canvas()->centerOn(r.center().x(), r.top() + 400);
    QVERIFY(w.grab().save(out + QStringLiteral("/canvas_densenet121_block.png")));
    // In the third, the densest (326 edges between 27 items, routed as polylines), at 1:2.
    const int dense = groupByPath(w.view(), QStringLiteral("features.denseblock3.denselayer3"));
    QVERIFY(dense > 0);
    w.canvas()->scale(0.5, 0.5);
    w.canvas()->centerOn(w.canvas()->graphScene()->groupItem(dense)->rect().center());
    QVERIFY(w.grab().save(out + QStringLiteral("/canvas_densenet121_dense_block.png")));
  }
};

QTEST_MAIN(TstCanvas)
#include "tst_canvas.moc"
