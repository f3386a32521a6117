// The main window fits the screen: on a 1366x768 laptop (and a 1600x1000 one, a second ctest
// entry), with the Compare dock shown and with every dock shown, it is no larger than the
// screen's available area and asks for no minimum size beyond it. The screen comes from the
// offscreen platform's configuration (GRAFT_TEST_SCREEN=WxH, default 1366x768).
#include "test_support.h"
#include "ui/main_window.h"

#include <QtCore/QDir>
#include <QtGui/QScreen>
#include <QtTest/QtTest>
#include <QtWidgets/QApplication>
#include <QtWidgets/QDockWidget>

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
