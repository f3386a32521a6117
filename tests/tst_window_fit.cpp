// The main window fits the screen: on a 1366x768 laptop (and a 1600x1000 one, a second ctest
// entry), with the Compare dock shown and with every dock shown, it is no larger than the
// screen's available area and asks for no minimum size beyond it. The screen comes from the
// offscreen platform's configuration (GRAFT_TEST_SCREEN=WxH, default 1366x768).
#include "test_support.h"
#include "core/model/document.h"
#include "ui/diff/diff_view.h"
#include "ui/main_window.h"
#include "ui/rewrite/rewrite_dock.h"

#include <QtCore/QDir>
#include <QtGui/QScreen>
#include <QtTest/QtTest>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QPushButton>

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
    QVERIFY(w.document()->count() > 1);
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
    auto* diff = w.showDiff(0, w.document()->currentIndex());
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
