// The canvas in the main window: layout arrives from the worker, +/- clicks expand and collapse,
// find reveals hidden nodes, selection syncs canvas / module tree / IR / inspector, edge
// tooltips carry the tensor type, exports write valid SVG and PNG, and screenshots for people.
#include "core/edit/edit.h"
#include "core/layout/labels.h"
#include "core/layout/layout_engine.h"
#include "gui_support.h"
#include "synthetic_views.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/canvas/graph_items.h"
#include "ui/canvas/graph_scene.h"
#include "ui/canvas/minimap.h"
#include "ui/compare_dock.h"
#include "ui/document/document_controller.h"
#include "ui/edit_actions.h"
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
#include <QtWidgets/QScrollBar>
#include <QtWidgets/QTableWidget>

using graft::ui::MainWindow;
using graft::ui::canvas::GraphCanvas;
using namespace graft::core;

using graft::test::runCompare;
using graft::test::waitLayout;

namespace {

int groupByPath(const model::GraphView* v, const QString& path) {
  for (const auto& g : v->groups)
    if (g.path == path) return g.index;
  return -1;
}

QPoint viewPos(GraphCanvas* c, QPointF scenePos) { return c->mapFromScene(scenePos); }

// The background of the Compare table's row for node `id` (invalid when it has none).
QColor rowColour(graft::ui::CompareDock* dock, model::NodeId id) {
  for (int row = 0; row < dock->table()->rowCount(); ++row)
    if (model::NodeId(dock->table()->item(row, 0)->data(Qt::UserRole).toULongLong()) == id)
      return dock->table()->item(row, 0)->background().color();
  return {};
}

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

  // Find by shape, typed as the edges write it (1×64×56×56) or with an x: exactly the values of
  // that shape.
  void findByShape() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("pt2/resnet18.pt2"))));
    QVERIFY(waitLayout(w.canvas()));
    const auto* v = w.view();
    static const QRegularExpression typed(QStringLiteral(R"(^\w+ \[(\d+(, \d+)+)\]$)"));
    QString dims;
    for (const auto& n : v->nodes)
      if (const auto m = typed.match(n.outputs.value(0).type); m.hasMatch() && n.op.contains(QLatin1String("relu"))) {
        dims = m.captured(1);
        break;
      }
    QVERIFY(!dims.isEmpty());
    int expected = 0;
    for (const auto& n : v->nodes) {
      bool shaped = false;
      for (const auto& o : n.outputs) shaped = shaped || o.type.endsWith(QStringLiteral(" [%1]").arg(dims));
      expected += shaped;
    }
    auto* find = w.findChild<graft::ui::FindBar*>();
    QString typedX = dims, written = dims;
    typedX.replace(QStringLiteral(", "), QStringLiteral("x"));
    written.replace(QStringLiteral(", "), QString(QChar(0x00D7)));
    QCOMPARE(find->search(typedX), expected);
    QCOMPARE(find->search(written), expected);
    QVERIFY(v->node(w.selectedNode())->outputs.front().type.endsWith(QStringLiteral(" [%1]").arg(dims)));
  }

  void findRevealsAndSelectionSyncs() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));  // the Ctrl+F shortcut needs the active window
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
    // Items, not the overview a far fit paints, whatever size the window came up at.
    while (c->zoom() < 1) c->zoomBy(2);
    c->updateDetailMode();
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

  // Level of detail: below kTextLod a node is a plain filled box; zooming and panning repaint the
  // scene that is there and never ask for a layout.
  void levelOfDetailWithoutRelayout() {
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* c = w.canvas();
    c->expandAll();
    QVERIFY(waitLayout(c));
    auto* scene = c->graphScene();
    const auto node = c->diagram().nodes.front();
    QVERIFY(graft::ui::canvas::showsText(1.0));
    QVERIFY(!graft::ui::canvas::showsText(0.3));
    // The colours inside the box (a few pixels in from its border), drawn at `zoom`.
    const auto coloursInBox = [&](double zoom) {
      c->resetTransform();
      c->scale(zoom, zoom);
      c->centerOn(node.rect.center());
      c->updateDetailMode();
      QImage img(c->viewport()->size(), QImage::Format_RGB32);
      img.fill(Qt::white);
      QPainter p(&img);
      c->render(&p, QRectF(), c->viewport()->rect());
      p.end();
      const QRect box = c->mapFromScene(node.rect).boundingRect().adjusted(3, 3, -3, -3);
      QSet<QRgb> colours;
      for (int y = box.top(); y <= box.bottom(); ++y)
        for (int x = box.left(); x <= box.right(); ++x) colours.insert(img.pixel(x, y));
      return colours.size();
    };
    QVERIFY(coloursInBox(1.0) > 2);  // text on the fill
    QCOMPARE(coloursInBox(0.3), 1);  // the fill alone
    QVERIFY(scene->detailVisible());
    // Zoom steps (into the overview and back) and pans: no layout, the same items.
    QSignalSpy layouts(c, &GraphCanvas::layoutFinished);
    const auto* item = scene->nodeItem(node.id);
    const qsizetype items = scene->items().size();
    c->fitToWindow();
    for (int i = 0; i < 12; ++i) {
      c->zoomBy(0.7);
      c->viewport()->repaint();
    }
    for (int i = 0; i < 24; ++i) {
      c->zoomBy(1.4);
      c->viewport()->repaint();
    }
    for (int i = 0; i < 10; ++i) {
      c->verticalScrollBar()->setValue(c->verticalScrollBar()->value() + 50);
      c->horizontalScrollBar()->setValue(c->horizontalScrollBar()->value() + (i % 2 ? 40 : -40));
      c->viewport()->repaint();
    }
    QVERIFY(!c->layoutPending());
    QCOMPARE(layouts.count(), 0);
    QCOMPARE(scene->nodeItem(node.id), item);
    QCOMPARE(scene->items().size(), items);
  }

  // No curtains on the canvas: the mask every block reads is a stub at each far block. Hovering
  // a stub highlights the mask and every route of it; a click on it selects the mask.
  void stubsHighlightAndLeadToTheirSource() {
    GraphCanvas c;
    c.resize(1200, 800);
    c.show();
    QVERIFY(QTest::qWaitForWindowExposed(&c));
    const auto view = graft::test::repeatedBlocks(60);
    c.setView(view);
    QVERIFY(waitLayout(&c));
    c.expandAll();
    QVERIFY(waitLayout(&c));
    const auto& edges = c.diagram().edges;
    int stub = -1, other = -1;
    for (int i = 0; i < edges.size(); ++i)
      if (edges[i].stub && !edges[i].atSource) (stub < 0 ? stub : other) = i;
    QVERIFY(stub >= 0 && other >= 0);
    const model::NodeId mask = view->edges[edges[stub].edge].from;
    QCOMPARE(mask, model::NodeId(1));
    auto* scene = c.graphScene();
    QVERIFY(!scene->nodeSelected(mask));
    c.resetTransform();
    const QPointF middle = (edges[stub].points.front() + edges[stub].points.back()) / 2;
    c.centerOn(middle);
    c.updateDetailMode();
    const QPoint at = c.mapFromScene(middle);
    // The pointer comes from beside the stub (moves sent to the viewport: no window is active).
    const auto moveTo = [&](QPoint p) {
      QMouseEvent move(QEvent::MouseMove, p, c.viewport()->mapToGlobal(p), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
      QApplication::sendEvent(c.viewport(), &move);
    };
    moveTo(at + QPoint(300, 0));
    moveTo(at);
    QTRY_VERIFY(scene->nodeSelected(mask));
    QVERIFY(scene->routeOfHoveredValue(other));
    QVERIFY(!scene->routeOfHoveredValue(0) || view->edges[edges[0].edge].from == mask);
    QVERIFY(scene->toolTipAt(middle).contains(QStringLiteral("from model full")));
    QSignalSpy activated(&c, &GraphCanvas::nodeActivated);
    QTest::mouseClick(c.viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.front().front().value<model::NodeId>(), mask);
    moveTo(at + QPoint(300, 0));
    QTRY_VERIFY(!scene->nodeSelected(mask));
  }

  // A long edge strokes only the part of its route in view: its pieces are small and the part
  // near a viewport-sized rect holds a few of them.
  void longEdgeDrawsOnlyWhatIsInView() {
    QPainterPath route;
    route.moveTo(0, 0);
    route.cubicTo(QPointF(400, 30000), QPointF(-400, 60000), QPointF(0, 90000));
    const graft::ui::canvas::EdgeItem edge(0, route);
    const QRectF view(-1000, 45000, 2000, 1000);
    const QPainterPath part = edge.visiblePath(view);
    QVERIFY(!part.isEmpty());
    QVERIFY(part.boundingRect().height() < 2000);
    QVERIFY(part.boundingRect().intersects(view));
    QCOMPARE(edge.visiblePath(QRectF(-1000, -1000, 2000, 100000)).boundingRect(), route.boundingRect());
  }

  void exportsSvgPngDot() {
    MainWindow w;
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    QVERIFY(waitLayout(w.canvas()));
    QTemporaryDir dir;
    const QString svg = dir.filePath(QStringLiteral("d.svg")), png = dir.filePath(QStringLiteral("d.png")),
                  dot = dir.filePath(QStringLiteral("d.dot"));
    QVERIFY(w.parts().exports->exportSvg(svg));
    QVERIFY(w.parts().exports->exportPng(png));
    QVERIFY(w.parts().exports->exportDot(dot));
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

  // A verdict outline shows over a heat fill: with the cost heatmap on, a node the Compare table
  // shows red is ringed red on screen (the item state and the pixels), never green. The marks
  // belong to revision B of the comparison: another revision shown, they go (even from nodes
  // that revision shares); back on B, they come back.
  void compareMarksOverHeatAndPerRevision() {
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    auto* scene = c->graphScene();
    auto* compare = w.findChild<graft::ui::CompareDock*>();
    QVERIFY(compare);
    compare->setInputSpec(QStringLiteral("1x3x64x64"));
    // An equal comparison of the original with itself: everything compared is green.
    QVERIFY(runCompare(compare));
    QVERIFY2(compare->summary().ok && compare->summary().equal, qPrintable(compare->summary().error));
    QVERIFY(!scene->marks().isEmpty());
    // A new revision is shown: the green marks of the original do not stay on it.
    const auto relu = graft::test::nodeAt(w.view(), QStringLiteral("layer2.0.relu"), QStringLiteral("aten::relu_"));
    QVERIFY(relu);
    QVERIFY(w.parts().edits->applyEdit(edit::ReplaceOp{relu, QStringLiteral("aten::gelu")}, false));
    QVERIFY(waitLayout(c));
    QVERIFY2(scene->marks().isEmpty(), qPrintable(QStringLiteral("%1 marks of revision 0 on revision 1").arg(scene->marks().size())));
    // Original against the gelu revision: downstream of the change the table is red.
    QVERIFY(runCompare(compare));
    QVERIFY2(compare->summary().ok && !compare->summary().equal, qPrintable(compare->summary().error));
    QVERIFY(waitLayout(c));
    const auto fc = graft::test::nodeAt(w.view(), QStringLiteral("fc"), QStringLiteral("aten::linear"));
    QVERIFY(fc);
    QCOMPARE(rowColour(compare, fc), QColor(250, 200, 200));  // the table's red
    // The cost heatmap on, fc the hottest node: deep red fill.
    QHash<model::NodeId, double> heat;
    for (const auto& n : w.view()->nodes) heat.insert(n.id, 1.0);
    heat.insert(fc, 50.0);
    c->setHeat(heat);
    QVERIFY(c->heatVisible());
    const QColor red(0xe5, 0x39, 0x35), green(0x2e, 0x7d, 0x32);
    QVERIFY(scene->markOf(fc));
    QCOMPARE(scene->markOf(fc)->colour, red);
    // Every row's colour and its node's ring agree: no node with a red row is ringed green.
    for (int row = 0; row < compare->table()->rowCount(); ++row) {
      const auto id = model::NodeId(compare->table()->item(row, 0)->data(Qt::UserRole).toULongLong());
      if (id == model::kNoNode || compare->table()->item(row, 0)->background().color() != QColor(250, 200, 200)) continue;
      QVERIFY(scene->markOf(id));
      QVERIFY2(scene->markOf(id)->colour != green, qPrintable(compare->table()->item(row, 0)->text()));
    }
    // On screen: the ring around fc's box is red on every side, over the heat and the neighbours.
    c->revealNode(fc);
    QVERIFY(waitLayout(c));
    auto* item = scene->nodeItem(fc);
    QVERIFY(item);
    // The scene around node `id`, rendered at 1:1, and the colours on lines `grow` outside its box
    // (the middle half of each side).
    const auto ringColours = [&](model::NodeId id, double grow, QColor* fill = nullptr) {
      const QRectF box = scene->nodeItem(id)->rect();
      const QRectF around = box.adjusted(-16, -16, 16, 16);
      QImage shot(around.size().toSize(), QImage::Format_RGB32);
      shot.fill(Qt::white);
      {
        QPainter p(&shot);
        p.setRenderHint(QPainter::Antialiasing);
        scene->render(&p, QRectF(shot.rect()), around);
      }
      if (fill) *fill = shot.pixelColor((box.topLeft() + QPointF(4, 4) - around.topLeft()).toPoint());
      QVector<QColor> colours;
      for (double t = 0.25; t <= 0.75; t += 0.05)
        for (const QPointF& at : {QPointF(box.left() + t * box.width(), box.top() - grow), QPointF(box.left() + t * box.width(), box.bottom() + grow),
                                  QPointF(box.left() - grow, box.top() + t * box.height()), QPointF(box.right() + grow, box.top() + t * box.height())})
          colours << shot.pixelColor((at - around.topLeft()).toPoint());
      return colours;
    };
    const auto count = [](const QVector<QColor>& colours, QColor want) {
      return int(std::count_if(colours.begin(), colours.end(), [&](QColor a) {
        return std::abs(a.red() - want.red()) + std::abs(a.green() - want.green()) + std::abs(a.blue() - want.blue()) < 60;
      }));
    };
    QColor fill;
    const auto ring = ringColours(fc, graft::ui::canvas::kMarkGrow, &fill);
    QVERIFY2(count(ring, red) == ring.size() && count(ring, green) == 0,
             qPrintable(QStringLiteral("%1 of %2 ring pixels red, %3 green").arg(count(ring, red)).arg(ring.size()).arg(count(ring, green))));
    QVERIFY2(fill.red() > 150 && fill.green() < 120, qPrintable(fill.name()));  // the hottest heat fill under the ring
    // The gelu the revision added is the first divergence: its dark red ring shows alone, without
    // the green "added" outline inside it.
    const auto gelu = graft::test::nodeAt(w.view(), QStringLiteral("layer2.0.relu"), QStringLiteral("aten::gelu"));
    c->revealNode(gelu);
    QVERIFY(waitLayout(c));
    QVERIFY(scene->nodeItem(gelu) && scene->markOf(gelu));
    QCOMPARE(scene->changes().value(gelu), graft::ui::canvas::GraphScene::Change::Added);
    const auto geluRing = ringColours(gelu, graft::ui::canvas::kMarkGrow);
    QCOMPARE(count(geluRing, scene->markOf(gelu)->colour), int(geluRing.size()));
    for (double grow : {2.0, 3.0, 4.0}) QCOMPARE(count(ringColours(gelu, grow), QColor(0x2e, 0xa0, 0x43)), 0);
    if (const QString dir = qEnvironmentVariable("GRAFT_SCREENSHOT_DIR"); !dir.isEmpty()) {
      // The window at 1366×768: the cost heatmap with the comparison's rings around the change
      // (green before it, its first divergence dark red, red after it).
      c->expandAll();
      QVERIFY(waitLayout(c));
      QHash<model::NodeId, double> costs;  // a cost for every node, by its kind, fc the hottest
      for (const auto& n : w.view()->nodes) costs.insert(n.id, n.op.contains(QLatin1String("conv")) ? 20 : n.op.contains(QLatin1String("norm")) ? 8 : 2);
      costs.insert(fc, 50);
      c->setHeat(costs);
      if (auto* dock = w.findChild<QDockWidget*>(QStringLiteral("compareDock"))) {  // its table beside the drawing
        dock->show();
        dock->raise();
      }
      QApplication::processEvents();
      c->resetTransform();
      QVERIFY(scene->nodeItem(gelu));
      c->centerOn(scene->nodeItem(gelu)->rect().center());
      QApplication::processEvents();
      QVERIFY(w.grab().save(QDir(dir).filePath(QStringLiteral("heatmap_compare_marks_1366x768.png"))));
    }
    // Another revision shown: the comparison's rings go; back on B they return.
    w.controller()->setCurrent(0);
    QVERIFY(waitLayout(c));
    QVERIFY(scene->marks().isEmpty());
    w.controller()->setCurrent(1);
    QVERIFY(waitLayout(c));
    QVERIFY(scene->markOf(fc));
    QCOMPARE(scene->markOf(fc)->colour, red);
  }

  // After Fit on a large expanded graph (a fit scale far below 1%), every way of zooming in
  // works, zooming out stops at a limit at or below the fit scale, and zooming in from there
  // works again.
  void zoomInWorksAfterFitOnALargeGraph() {
    MainWindow w;
    w.resize(1366, 400);  // a canvas about as high as a laptop's with docks below it
    w.show();
    // Swin V2 Tiny: 1,388 ops, fitted expanded far below 1%.
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("zoo/swin_v2_t.pt"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    QVERIFY(w.view()->opCount() > 1300);
    c->expandAll();
    QVERIFY(waitLayout(c));
    c->fitToWindow();
    const double fit = c->zoom();
    qInfo("swin_v2_t expanded: %lld boxes, %lld routes, %.0f x %.0f, fitted at %.4f in %dx%d", qlonglong(c->diagram().nodes.size()),
          qlonglong(c->diagram().edges.size()), c->diagram().bounds.width(), c->diagram().bounds.height(), fit,
          c->viewport()->width(), c->viewport()->height());
    QVERIFY(fit * 1.25 < 0.01);  // where a 0.01 floor refused every step in
    QVERIFY2(c->minZoom() <= fit, qPrintable(QStringLiteral("min %1, fit %2").arg(c->minZoom()).arg(fit)));
    QVERIFY(std::abs(c->fitZoom() - fit) < 1e-6 * std::max(1.0, fit) || fit == 1.0);
    // Ctrl+=, the wheel and View > Zoom In each zoom in.
    c->setFocus();
    QTest::keyClick(c, Qt::Key_Equal, Qt::ControlModifier);
    QVERIFY2(c->zoom() > fit * 1.1, qPrintable(QStringLiteral("%1 after Ctrl+= from %2").arg(c->zoom()).arg(fit)));
    c->fitToWindow();
    QWheelEvent wheel(QPointF(100, 100), c->viewport()->mapToGlobal(QPointF(100, 100)), {}, QPoint(0, 120), Qt::NoButton, {},
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(c->viewport(), &wheel);
    QVERIFY2(c->zoom() > fit * 1.1, qPrintable(QStringLiteral("%1 after the wheel from %2").arg(c->zoom()).arg(fit)));
    c->fitToWindow();
    QAction* zoomIn = nullptr;
    for (auto* a : w.findChildren<QAction*>())
      if (a->text().remove(QLatin1Char('&')) == QLatin1String("Zoom In")) zoomIn = a;
    QVERIFY(zoomIn);
    zoomIn->trigger();
    QVERIFY(c->zoom() > fit * 1.1);
    // Out as far as it goes: it stops at the limit, then zooms in again.
    for (int i = 0; i < 60; ++i) c->zoomBy(0.8);
    QVERIFY(c->zoom() >= c->minZoom() * (1 - 1e-9));
    QVERIFY(c->zoom() <= fit);
    const double floor = c->zoom();
    c->zoomBy(1.25);
    QVERIFY(c->zoom() > floor * 1.2);
    // Even from a scale below the limit (a window made larger after a fit).
    c->resetTransform();
    c->scale(c->minZoom() / 10, c->minZoom() / 10);
    const double tiny = c->zoom();
    c->zoomBy(1.25);
    QVERIFY(c->zoom() > tiny * 1.2);
    // In as far as it goes: 8×, and out again.
    for (int i = 0; i < 80; ++i) c->zoomBy(1.25);
    QVERIFY(std::abs(c->zoom() - GraphCanvas::kMaxZoom) < 1e-9);
    c->zoomBy(0.8);
    QVERIFY(c->zoom() < GraphCanvas::kMaxZoom);
  }

  // Collapse All and Expand All keep the selected node in view (the box that shows it when it is
  // collapsed away); without a selection, Collapse All after a fit shows the whole graph and
  // Expand All shows boxes, never an empty corner.
  void expandAndCollapseAllKeepTheViewOnTheSelection() {
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    auto* scene = c->graphScene();
    const auto shownRect = [c] { return c->mapToScene(c->viewport()->rect()).boundingRect(); };
    const auto boxesShown = [&] {
      int n = 0;
      for (const auto& node : c->diagram().nodes) n += shownRect().intersects(node.rect);
      for (const auto& g : c->diagram().groups) n += !g.expanded && shownRect().intersects(g.rect);
      return n;
    };
    // No selection: Expand All from the fitted top level shows boxes, Collapse All from the
    // fitted expanded graph shows all of it.
    c->expandAll();
    QVERIFY(waitLayout(c));
    QVERIFY2(boxesShown() > 0, "Expand All shows an empty part of the canvas");
    c->fitToWindow();
    c->collapseAll();
    QVERIFY(waitLayout(c));
    QVERIFY2(shownRect().contains(c->diagram().bounds), "Collapse All does not show the whole graph");
    QVERIFY(c->zoom() >= c->fitZoom() * 0.99 || c->zoom() == 1.0);
    // A node deep in layer3, selected, then far away from the view.
    const auto deep = graft::test::nodeAt(w.view(), QStringLiteral("layer3.1.conv2"), QStringLiteral("aten::_convolution"));
    QVERIFY(deep);
    c->expandAll();
    QVERIFY(waitLayout(c));
    w.selectNode(deep);
    c->resetTransform();
    c->centerOn(c->diagram().bounds.topLeft());
    QVERIFY(!shownRect().intersects(scene->nodeItem(deep)->rect()));
    c->collapseAll();
    QVERIFY(waitLayout(c));
    QVERIFY(scene->itemShowing(deep));
    QVERIFY2(shownRect().intersects(scene->itemShowing(deep)->sceneBoundingRect()), "Collapse All lost the selected node");
    // Zoomed in on a corner of the collapsed graph, Expand All brings the selection into view.
    c->resetTransform();
    c->scale(2, 2);
    c->centerOn(c->diagram().bounds.topLeft());
    c->expandAll();
    QVERIFY(waitLayout(c));
    QVERIFY(scene->nodeItem(deep));
    QVERIFY2(shownRect().contains(scene->nodeItem(deep)->rect()), "Expand All lost the selected node");
    QCOMPARE(c->zoom(), 2.0);  // at the zoom the user chose
    // Find, from the whole graph fitted far out: the node it finds is shown at reading size.
    c->collapseAll();
    QVERIFY(waitLayout(c));
    c->expandAll();
    QVERIFY(waitLayout(c));
    c->fitToWindow();
    QVERIFY(c->zoom() < graft::ui::canvas::kTextLod);
    auto* find = w.findChild<graft::ui::FindBar*>();
    QVERIFY(find->search(QStringLiteral("layer4.0.downsample")) >= 1);
    QVERIFY(waitLayout(c));
    const auto found = w.selectedNode();
    QVERIFY(scene->nodeItem(found));
    QVERIFY2(shownRect().contains(scene->nodeItem(found)->rect()), "Find left the found node out of view");
    QVERIFY(c->zoom() >= graft::ui::canvas::kTextLod);
  }

  // Shape labels on edges are drawn at least 9 px high at 100% zoom, each in a rect that holds
  // its text, and none is over a group's title bar (with a few pixels clear of it).
  void edgeLabelsAreReadable() {
    const QFont font = graft::ui::canvas::edgeLabelFont();
    QVERIFY2(font.pixelSize() >= 9, qPrintable(QString::number(font.pixelSize())));
    const QFontMetricsF metrics(font);
    for (const QString text : {QStringLiteral("1×64×56×56"), QStringLiteral("1×3×224×224 float16"), QStringLiteral("scalar")}) {
      const QSizeF size = graft::ui::canvas::edgeLabelSize(text);
      QVERIFY2(size.width() >= metrics.horizontalAdvance(text) - 0.5,
               qPrintable(QStringLiteral("%1: %2 wide for %3").arg(text).arg(size.width()).arg(metrics.horizontalAdvance(text))));
      QVERIFY(size.height() >= metrics.height() - 0.5);
    }
    // The glyphs as painted at 1:1: digits at least 8 px tall (DejaVu's digits are 0.73 em).
    QImage img(200, 40, QImage::Format_RGB32);
    img.fill(Qt::white);
    {
      QPainter p(&img);
      graft::ui::canvas::paintEdgeLabel(p, QRectF(QPointF(10, 10), graft::ui::canvas::edgeLabelSize(QStringLiteral("1×64×56×56"))),
                                        QStringLiteral("1×64×56×56"), 1.0);
    }
    int top = img.height(), bottom = -1;
    for (int y = 0; y < img.height(); ++y)
      for (int x = 0; x < img.width(); ++x)
        if (qGray(img.pixel(x, y)) < 160) {
          top = std::min(top, y);
          bottom = std::max(bottom, y);
        }
    QVERIFY2(bottom - top + 1 >= 8, qPrintable(QStringLiteral("ink %1 px tall").arg(bottom - top + 1)));
    // On an expanded program: no label within 3 px of a title bar.
    MainWindow w;
    w.resize(1366, 768);
    w.show();
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("pt2/resnet18.pt2"))));
    auto* c = w.canvas();
    QVERIFY(waitLayout(c));
    c->expandAll();
    QVERIFY(waitLayout(c));
    int labels = 0;
    for (QGraphicsItem* item : c->graphScene()->items()) {
      auto* e = dynamic_cast<graft::ui::canvas::EdgeItem*>(item);
      if (!e || e->labelRect().isNull()) continue;
      ++labels;
      for (const auto& g : c->diagram().groups)
        if (g.expanded)
          QVERIFY2(!e->labelRect().intersects(QRectF(g.rect.left(), g.rect.top(), g.rect.width(), layout::kTitleHeight).adjusted(-2, -2, 2, 2)),
                   qPrintable(e->label()));
    }
    QVERIFY(labels > 20);
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
