// The Compare dock: a run in the worker thread lists outputs and nodes, colours them, inspects a
// node's tensor, and reports a failing run's node.
#include "core/io/load.h"
#include "ui/compare_dock.h"
#include "ui/main_window.h"
#include "ui/tensor_inspector.h"

#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QLabel>
#include <QtWidgets/QTableWidget>

using namespace graft;

class TstCompareDock : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void comparesSampleWithItself() {
    auto doc = core::io::loadSample(QStringLiteral("cnn")).document;
    QVERIFY(doc);
    ui::CompareDock dock;
    dock.setDocument(doc.get());
    QSignalSpy done(&dock, &ui::CompareDock::finished);
    dock.start();
    QVERIFY(dock.isRunning() || done.count() == 1);
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY2(dock.summary().ok, qPrintable(dock.summary().error));
    QVERIFY(dock.summary().equal);
    QVERIFY(dock.table()->rowCount() > 10);
    QCOMPARE(dock.table()->item(0, 6)->text(), QStringLiteral("pass"));
    QCOMPARE(dock.table()->item(0, 0)->background().color(), QColor(200, 240, 200));
    // Inspect the first node row: stats on both sides.
    QSignalSpy activated(&dock, &ui::CompareDock::nodeActivated);
    Q_EMIT dock.table()->cellDoubleClicked(1, 0);
    QCOMPARE(activated.count(), 1);
    QVERIFY2(dock.inspector()->statsText().contains(QLatin1String("A: float32")), qPrintable(dock.inspector()->statsText()));
    QVERIFY(dock.inspector()->statsText().contains(QLatin1String("mean")));
  }

  void wrongInputReportsTheNode() {
    auto doc = core::io::loadSample(QStringLiteral("cnn")).document;
    ui::CompareDock dock;
    dock.setDocument(doc.get());
    dock.setInputSpec(QStringLiteral("1x5x32x32"));
    QSignalSpy done(&dock, &ui::CompareDock::finished);
    dock.start();
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY(!dock.summary().ok);
    QVERIFY2(dock.summary().error.contains(QLatin1String("conv")), qPrintable(dock.summary().error));
  }

  void mainWindowHasTheDock() {
    ui::MainWindow w;
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("compareDock"));
    QVERIFY(dock);
    QVERIFY(w.openSample(QStringLiteral("mlp")));
    auto* compare = w.findChild<ui::CompareDock*>();
    QVERIFY(compare);
    QSignalSpy done(compare, &ui::CompareDock::finished);
    compare->start();
    QVERIFY(done.count() == 1 || done.wait(120000));
    QVERIFY2(compare->summary().ok, qPrintable(compare->summary().error));
  }
};

QTEST_MAIN(TstCompareDock)
#include "tst_compare_dock.moc"
