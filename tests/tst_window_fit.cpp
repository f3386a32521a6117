// The main window fits the screen: on a 1366x768 laptop (and a 1600x1000 one, a second ctest
// entry), with the Compare dock shown and with every dock shown, it is no larger than the
// screen's available area and asks for no minimum size beyond it. The screen comes from the
// offscreen platform's configuration (GRAFT_TEST_SCREEN=WxH, default 1366x768).
#include "test_support.h"
#include "core/model/document.h"
#include "ui/diff/diff_view.h"
#include "ui/canvas/graph_canvas.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/compare_dock.h"
#include "ui/history_dock.h"
#include "ui/profile/profile_charts.h"
#include "ui/profile/profile_dock.h"
#include "ui/tensor_inspector.h"

#include <QtCore/QDir>
#include <QtGui/QScreen>
#include <QtTest/QtTest>
#include <QtGui/QAction>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QPushButton>
#include <QtCharts/QChartView>
#include <QtCharts/QValueAxis>
#include <QtCore/QRegularExpression>
#include <QtTest/QSignalSpy>
#include <QtWidgets/QLabel>
#include <QtWidgets/QScrollArea>
#include <QtWidgets/QScrollBar>
#include <QtWidgets/QSpinBox>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QHeaderView>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {
int screenWidth = 1366, screenHeight = 768;
}

class TstWindowFit : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void screenIsTheConfiguredOne() {
    const QSize size = QGuiApplication::primaryScreen()->availableGeometry().size();
    QCOMPARE(size, QSize(screenWidth, screenHeight));
  }

  void fits_data() {
    QTest::addColumn<bool>("everyDock");
    QTest::newRow("compare dock") << false;
    QTest::newRow("every dock") << true;
  }
  void fits() {
    QFETCH(bool, everyDock);
    const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
    graft::ui::MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (auto* dock : w.findChildren<QDockWidget*>())
      if (everyDock || dock->objectName() == QLatin1String("compareDock")) dock->show();
    w.findChild<QDockWidget*>(QStringLiteral("compareDock"))->raise();
    QTest::qWait(100);
    QApplication::processEvents();
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
    QVERIFY2(min.width() <= screen.width() && min.height() <= screen.height(),
             qPrintable(QStringLiteral("minimum %1x%2 on a %3x%4 screen").arg(min.width()).arg(min.height()).arg(screen.width()).arg(screen.height())));
    QVERIFY2(screen.contains(w.frameGeometry()),
             qPrintable(QStringLiteral("window %1x%2+%3+%4 on a %5x%6 screen").arg(w.frameGeometry().width()).arg(w.frameGeometry().height())
                            .arg(w.frameGeometry().x()).arg(w.frameGeometry().y()).arg(screen.width()).arg(screen.height())));
    // The docks did not push the window past the screen once shown.
    QVERIFY(w.width() <= screen.width() && w.height() <= screen.height());
    // For people to look at: the window as it is drawn on this screen.
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    QVERIFY(w.grab().save(QStringLiteral("%1/window_fit_%2x%3_%4.png").arg(out).arg(screen.width()).arg(screen.height())
                              .arg(everyDock ? QStringLiteral("every_dock") : QStringLiteral("compare"))));
  }

  // The default layout leaves the canvas most of a laptop's window: at 1366x768 its viewport is at
  // least 55% of the window's area (one tabbed dock column; the bottom area closed until a job
  // starts, and Run > Compare opens it).
  void canvasKeepsMostOfTheWindow() {
    graft::ui::MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet18.pt"))));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTest::qWait(100);
    QApplication::processEvents();
    const QWidget* viewport = w.canvas()->viewport();
    QVERIFY(viewport->isVisible());
    const double share = double(viewport->width()) * viewport->height() / (double(w.width()) * w.height());
    const QString said = QStringLiteral("canvas %1x%2 in a %3x%4 window: %5%").arg(viewport->width()).arg(viewport->height())
                             .arg(w.width()).arg(w.height()).arg(100 * share, 0, 'f', 1);
    qInfo("%s", qPrintable(said));
    QVERIFY2(share >= 0.55, qPrintable(said));
    for (const char* bottom : {"compareDock", "profileDock", "issuesDock"})
      if (auto* dock = w.findChild<QDockWidget*>(QLatin1String(bottom))) QVERIFY2(!dock->isVisible(), bottom);
    auto* compare = w.findChild<QAction*>(QStringLiteral("compareAction"));
    QVERIFY(compare);
    compare->trigger();
    QVERIFY(w.findChild<QDockWidget*>(QStringLiteral("compareDock"))->isVisible());
  }

  // With a job's dock open (Compare, Profile) the canvas keeps more than half the window (below
  // 1500 pixels across the right column steps aside until the job's docks close), the Compare
  // table shows its number columns, also beside a row's tensor view, and the Rewrites dock, shown
  // again by hand, its Apply buttons.
  void jobDockLeavesTheCanvasHalf() {
    graft::ui::MainWindow w;
    w.resize(QGuiApplication::primaryScreen()->availableGeometry().size() - QSize(16, 48));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    const auto share = [&] {
      QTest::qWait(100);
      QApplication::processEvents();
      const QWidget* viewport = w.canvas()->viewport();
      return double(viewport->width()) * viewport->height() / (double(w.width()) * w.height());
    };
    const auto fully = [](QWidget* widget) {
      return widget->isVisible() && widget->visibleRegion().boundingRect() == widget->rect();
    };
    auto* table = w.compareDock()->table();
    const auto numbersInView = [&] {
      for (int c = 2; c < table->columnCount(); ++c) {  // max abs to Result
        const int right = table->horizontalHeader()->sectionViewportPosition(c) + table->horizontalHeader()->sectionSize(c);
        if (right > table->viewport()->width()) {
          qWarning("column %d ends at %d of %d", c, right, table->viewport()->width());
          return false;
        }
      }
      return true;
    };
    auto* inspectorDock = w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
    QVERIFY(inspectorDock->isVisible());
    QSignalSpy compared(w.compareDock(), &graft::ui::CompareDock::finished);
    w.findChild<QAction*>(QStringLiteral("compareAction"))->trigger();
    QVERIFY(compared.count() == 1 || compared.wait(120000));
    qInfo("canvas share with a job's dock open: %.2f", share());
    QVERIFY2(share() > 0.5, qPrintable(QString::number(share())));
    QVERIFY(table->rowCount() > 2);
    QVERIFY(numbersInView());
    QVERIFY(fully(w.compareDock()->verdictLabel()));
    // A row's tensors beside the table: the numbers stay in view, and the tensor view is readable.
    table->scrollToItem(table->item(1, 0));
    const QRect row = table->visualItemRect(table->item(1, 0));  // stem.conv (row 0 is the output)
    QSignalSpy opened(table, &QTableWidget::cellDoubleClicked);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, row.center());
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, row.center());
    QTest::qWait(100);
    QCOMPARE(opened.count(), 1);
    QVERIFY(w.compareDock()->inspector()->isVisible());
    QVERIFY2(w.compareDock()->inspector()->width() >= 300, qPrintable(QString::number(w.compareDock()->inspector()->width())));
    QVERIFY(numbersInView());
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    QVERIFY(w.grab().save(QStringLiteral("%1/job_compare_%2x%3.png").arg(out).arg(screenWidth).arg(screenHeight)));
    w.profileDock()->show();
    w.profileDock()->raise();
    qInfo("canvas share with a job's dock open: %.2f", share());
    QVERIFY2(share() > 0.5, qPrintable(QString::number(share())));
    auto* rewrites = w.findChild<QDockWidget*>(QStringLiteral("rewritesDock"));
    rewrites->show();
    rewrites->raise();
    w.rewriteDock()->selectRule(QStringLiteral("fold-conv-bn"));
    QTest::qWait(100);
    for (const char* name : {"applyMatch", "applyRule"}) {
      auto* button = w.rewriteDock()->findChild<QPushButton*>(QLatin1String(name));
      QVERIFY2(fully(button), name);
    }
    // The job's docks closed, the column is back as it was.
    for (const char* bottom : {"compareDock", "profileDock"}) w.findChild<QDockWidget*>(QLatin1String(bottom))->close();
    QTRY_VERIFY(inspectorDock->isVisible());
  }

  // For people to look at, and for docs/screenshots: the window at this screen size with each dock
  // in front, showing what it shows after a rewrite, a comparison and a profile of the CNN sample.
  void everyDockScreenshot() {
    graft::ui::MainWindow w;
    w.resize(QGuiApplication::primaryScreen()->availableGeometry().size());  // the whole screen, as a user would
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    w.rewriteDock()->selectRule(QStringLiteral("fold-conv-bn"));
    QVERIFY(!w.rewriteDock()->applyShownRule().isEmpty());
    QVERIFY(w.controller()->document()->count() == 2);
    // The History chart carries its axes' values and units.
    QTRY_VERIFY_WITH_TIMEOUT(w.parts().docks->history->ledgerEntry(1) != nullptr, 120000);
    auto* chart = w.parts().docks->history->findChild<QChartView*>(QStringLiteral("historyLedgerChart"));
    QVERIFY(chart);
    QStringList titles;
    for (auto* axis : chart->chart()->axes()) {
      QVERIFY2(axis->labelsVisible(), qPrintable(axis->titleText()));
      titles << axis->titleText();
    }
    QCOMPARE(titles.size(), 3);
    QVERIFY2(titles.contains(QStringLiteral("revision")) && titles.contains(QStringLiteral("max abs error")) &&
                 titles.contains(QStringLiteral("median ms")),
             qPrintable(titles.join(QStringLiteral(", "))));
    w.rewriteDock()->selectRule(QStringLiteral("fuse-add-relu"));
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    const auto shoot = [&](const char* name) {
      auto* dock = w.findChild<QDockWidget*>(QLatin1String(name));
      QVERIFY2(dock, name);
      dock->show();
      dock->raise();
      QTest::qWait(300);  // the layout comes back meanwhile
      QApplication::processEvents();
      QVERIFY(w.grab().save(QStringLiteral("%1/dock_%2_%3x%4.png").arg(out, QString::fromLatin1(name).remove(QStringLiteral("Dock")))
                                .arg(screenWidth).arg(screenHeight)));
    };
    // The column's docks as the default layout shows them (no job run yet: the bottom area closed).
    for (const char* name : {"modulesDock", "rewritesDock", "historyDock", "irDock", "codeDock", "overviewDock"}) shoot(name);
    // Then a comparison and a profile open the bottom area.
    auto* compareFrame = w.findChild<QDockWidget*>(QStringLiteral("compareDock"));
    compareFrame->show();
    QSignalSpy compared(w.compareDock(), &graft::ui::CompareDock::finished);
    w.compareDock()->start();
    QVERIFY(compared.count() == 1 || compared.wait(120000));
    shoot("compareDock");
    w.profileDock()->show();
    w.findChild<QSpinBox*>(QStringLiteral("profileRuns"))->setValue(20);
    QSignalSpy profiled(w.profileDock(), &graft::ui::ProfileDock::finished);
    w.profileDock()->start();
    QVERIFY(profiled.count() == 1 || profiled.wait(120000));
    shoot("profileDock");
    shoot("issuesDock");
  }

  // The Compare dock, docked at the bottom of the window on this screen, shows its verdict line
  // and the first rows of the table without scrolling: both lie inside the dock's visible area
  // with the dock's scroll area at its top.
  void compareDockShowsVerdictAndRows() {
    graft::ui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("compareDock"));
    dock->show();
    dock->raise();
    auto* compare = w.compareDock();
    QSignalSpy done(compare, &graft::ui::CompareDock::finished);
    compare->start();
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY2(compare->summary().ok, qPrintable(compare->summary().error));
    QTest::qWait(200);
    QApplication::processEvents();
    QVERIFY(!dock->isFloating());
    QVERIFY(compare->verdictText().contains(
        QRegularExpression(QStringLiteral("^(Exact|Equal within rounding|Different|Outputs equal, an intermediate different)"))));
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    QVERIFY(scroll);
    QCOMPARE(scroll->verticalScrollBar()->value(), 0);
    const QRect shown = scroll->viewport()->rect();
    auto inView = [&](QWidget* widget, QRect r) { return QRect(widget->mapTo(scroll->viewport(), r.topLeft()), r.size()); };
    auto* verdict = compare->verdictLabel();
    QVERIFY(verdict->isVisible());
    QVERIFY2(shown.contains(inView(verdict, verdict->rect())),
             qPrintable(QStringLiteral("verdict at %1,%2 %3x%4 in a %5x%6 dock").arg(inView(verdict, verdict->rect()).x())
                            .arg(inView(verdict, verdict->rect()).y()).arg(verdict->width()).arg(verdict->height())
                            .arg(shown.width()).arg(shown.height())));
    auto* table = compare->table();
    const int rows = std::min(3, table->rowCount());
    QVERIFY(rows >= 3);
    for (int row = 0; row < rows; ++row) {
      const QRect cell = table->visualRect(table->model()->index(row, 0));
      QVERIFY2(table->viewport()->rect().contains(cell), qPrintable(QStringLiteral("row %1 outside the table's viewport").arg(row)));
      QVERIFY2(shown.contains(inView(table->viewport(), cell)),
               qPrintable(QStringLiteral("row %1 at y %2 in a dock %3 high").arg(row).arg(inView(table->viewport(), cell).y()).arg(shown.height())));
    }
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    QVERIFY(w.grab().save(QStringLiteral("%1/compare_dock_%2x%3.png").arg(out).arg(screenWidth).arg(screenHeight)));
  }

  // Docked, the Profile dock shows its charts (beside the timeline), each whole across and at least
  // 120 pixels of it unscrolled; value axes print plain decimals, never "1e+02" beside "1.4e+02".
  void profileDockShowsChartsDocked() {
    graft::ui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openSample(QStringLiteral("cnn")));
    auto* dock = w.profileDock();
    dock->show();
    dock->raise();
    w.findChild<QSpinBox*>(QStringLiteral("profileRuns"))->setValue(3);
    QSignalSpy done(dock, &graft::ui::ProfileDock::finished);
    dock->start();
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY(done.front().front().toBool());
    QTest::qWait(200);
    QApplication::processEvents();
    QVERIFY(!dock->isFloating());
    auto* scroll = qobject_cast<QScrollArea*>(dock->widget());
    const QRect shown = scroll ? scroll->viewport()->rect() : dock->rect();
    QWidget* frame = scroll ? scroll->viewport() : static_cast<QWidget*>(dock);
    for (QChartView* chart : {dock->charts()->byOpChart(), dock->charts()->latencyChart(), dock->charts()->distributionChart()}) {
      QVERIFY2(chart->isVisible(), qPrintable(chart->objectName()));
      QVERIFY2(chart->height() >= chart->minimumHeight() && chart->width() >= chart->minimumWidth(), qPrintable(chart->objectName()));
      const QRect at(chart->mapTo(frame, QPoint(0, 0)), chart->size());
      // Unscrolled, each chart shows whole, its axis labels included, and at least 110 pixels high.
      const QRect seen = shown.intersected(at);
      QVERIFY2(seen == at && seen.height() >= 110, qPrintable(QStringLiteral("%1 at %2,%3 %4x%5 in a %6x%7 dock").arg(chart->objectName())
                                                 .arg(at.x()).arg(at.y()).arg(at.width()).arg(at.height())
                                                 .arg(shown.width()).arg(shown.height())));
      for (auto* axis : chart->chart()->axes())
        if (auto* value = qobject_cast<QValueAxis*>(axis))
          QVERIFY2(!value->labelFormat().contains(QLatin1Char('g')) && !value->labelFormat().contains(QLatin1Char('e')),
                   qPrintable(chart->objectName() + QStringLiteral(": ") + value->labelFormat()));
    }
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    QVERIFY(w.grab().save(QStringLiteral("%1/profile_dock_%2x%3.png").arg(out).arg(screenWidth).arg(screenHeight)));
  }

  // After every applicable rule on resnet50 (History lists every change), with every dock shown,
  // the window still fits; so does the Diff window, which has its own Close button.
  void fitsAfterEveryRule() {
    const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
    graft::ui::MainWindow w;
    QVERIFY(w.openFile(graft::test::testdata(QStringLiteral("resnet50.pt"))));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QStringList rules = w.rewriteDock()->ruleIds();
    for (const QString& rule : rules)
      if (w.rewriteDock()->matchCount(rule) > 0) w.rewriteDock()->applyRules({rule});
    QVERIFY(w.controller()->document()->count() > 1);
    for (auto* dock : w.findChildren<QDockWidget*>()) dock->show();
    w.findChild<QDockWidget*>(QStringLiteral("historyDock"))->raise();
    QTest::qWait(200);
    QApplication::processEvents();
    auto fits = [&](QWidget* window, const char* what) {
      const QSize min = window->minimumSizeHint().expandedTo(window->minimumSize());
      QVERIFY2(min.width() <= screen.width() && min.height() <= screen.height(),
               qPrintable(QStringLiteral("%1: minimum %2x%3").arg(QLatin1String(what)).arg(min.width()).arg(min.height())));
      QVERIFY2(screen.contains(window->frameGeometry()),
               qPrintable(QStringLiteral("%1: %2x%3+%4+%5 on a %6x%7 screen").arg(QLatin1String(what))
                              .arg(window->frameGeometry().width()).arg(window->frameGeometry().height())
                              .arg(window->frameGeometry().x()).arg(window->frameGeometry().y())
                              .arg(screen.width()).arg(screen.height())));
    };
    fits(&w, "main window");
    auto* diff = w.showDiff(0, w.controller()->document()->currentIndex());
    QVERIFY(diff);
    QVERIFY(QTest::qWaitForWindowExposed(diff));
    QApplication::processEvents();
    fits(diff, "diff window");
    auto* close = diff->findChild<QPushButton*>(QStringLiteral("diffCloseButton"));
    QVERIFY(close && close->isVisible());
    QVERIFY(diff->rect().contains(close->mapTo(diff, close->rect().bottomRight())));
    const QString out = graft::test::testdata(QStringLiteral("screenshots"));
    QDir().mkpath(out);
    w.grab().save(QStringLiteral("%1/window_fit_%2x%3_every_rule.png").arg(out).arg(screen.width()).arg(screen.height()));
    diff->grab().save(QStringLiteral("%1/diff_fit_%2x%3.png").arg(out).arg(screen.width()).arg(screen.height()));
    close->click();
    QVERIFY(!diff->isVisible());
  }
};

int main(int argc, char** argv) {
  // GRAFT_TEST_SCREEN=native: the display's own screen (e.g. an Xvfb at 1366x768), as it is.
  if (qEnvironmentVariable("GRAFT_TEST_SCREEN") == QLatin1String("native")) {
    QApplication app(argc, argv);
    screenWidth = QGuiApplication::primaryScreen()->availableGeometry().width();
    screenHeight = QGuiApplication::primaryScreen()->availableGeometry().height();
    TstWindowFit test;
    return QTest::qExec(&test, argc, argv);
  }
  // The offscreen platform reads its screens from a JSON file named in the platform options.
  if (const char* size = std::getenv("GRAFT_TEST_SCREEN")) std::sscanf(size, "%dx%d", &screenWidth, &screenHeight);
  const std::string config = "/tmp/graft-test-screen-" + std::to_string(screenWidth) + "x" + std::to_string(screenHeight) + ".json";
  std::ofstream(config) << "{\"screens\": [{\"name\": \"test\", \"x\": 0, \"y\": 0, \"width\": " << screenWidth
                        << ", \"height\": " << screenHeight << ", \"logicalDpi\": 96, \"logicalBaseDpi\": 96, \"dpr\": 1}]}";
  qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + config.c_str());
  QApplication app(argc, argv);
  TstWindowFit test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_window_fit.moc"
