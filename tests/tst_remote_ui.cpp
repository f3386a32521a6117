// The window's remote devices (ui/device_list, ui/devices_dialog, the Compare dock's Device B)
// against a throwaway sshd on 127.0.0.1 whose "remote" Python is the venv's: a remote B gives
// the local compare's verdict, rows and canvas marks; a host without torch and Cancel end the job
// with the document untouched and the dock usable. Skips without /usr/sbin/sshd.
#include "gui_support.h"
#include "loopback_sshd.h"
#include "ui/canvas/graph_scene.h"
#include "ui/compare_dock.h"
#include "ui/device_list.h"
#include "ui/devices_dialog.h"
#include "ui/history_dock.h"
#include "ui/main_docks.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/profile/profile_dock.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QRegularExpression>
#include <QtCore/QSettings>
#include <QtCore/QStandardPaths>
#include <QtGui/QAction>
#include <QtTest/QSignalSpy>
#include <QtTest/QtTest>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QCheckBox>
#include <QtWidgets/QLabel>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QSpinBox>
#include <QtWidgets/QPushButton>
#include <QtWidgets/QTableWidget>

using namespace graft;
using graft::test::runCompare;
using graft::test::venvPython;

namespace {

// A remote compare starts ssh and the agent first: it may take longer than a local one.
constexpr int kRemoteWaitMs = 300000;


// Every cell of the dock's table, row by row.
QStringList cells(const QTableWidget* table) {
  QStringList out;
  for (int r = 0; r < table->rowCount(); ++r) {
    QStringList row;
    for (int c = 0; c < table->columnCount(); ++c) row << (table->item(r, c) ? table->item(r, c)->text() : QString());
    out << row.join(QLatin1Char('|'));
  }
  return out;
}

// Each compared node's mark on the canvas (rank and note).
QMap<quint64, QString> marksOf(const ui::canvas::GraphScene* scene) {
  QMap<quint64, QString> out;
  for (auto it = scene->marks().begin(); it != scene->marks().end(); ++it)
    out.insert(quint64(it.key()), QStringLiteral("%1 %2").arg(it->rank).arg(it->note));
  return out;
}

}  // namespace

class TstRemoteUi : public QObject {
  Q_OBJECT

  test::LoopbackSshd sshd_;
  QString skip_;

  // The loopback host with the venv's Python, as the Devices dialog adds it.
  void addLoopbackHost(const QString& python) {
    ui::DevicesDialog dialog;
    QVERIFY(dialog.addHost(QStringLiteral("graft-test"), python));
  }

 private Q_SLOTS:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // the hosts go to a test location, not the user's settings
    QCoreApplication::setOrganizationName(QStringLiteral("GraftTest"));
    skip_ = test::LoopbackSshd::unavailable();
    if (!skip_.isEmpty()) return;
    QVERIFY2(QFileInfo::exists(venvPython()), qPrintable(venvPython()));
    QString why;
    QVERIFY2(sshd_.start(&why), qPrintable(QStringLiteral("sshd did not start: ") + why));
  }
  void init() { ui::saveHosts({}); }
  void cleanupTestCase() {
    ui::saveHosts({});
    sshd_.stop();
  }

  // Hosts are kept in the settings; the device list offers this machine's devices, then theirs.
  void hostsPersist() {
    QVERIFY(ui::deviceChoices().front().label == QStringLiteral("cpu"));
    ui::DevicesDialog dialog;
    QVERIFY(!dialog.addHost(QStringLiteral("-oProxyCommand=x"), {}));
    QVERIFY(dialog.addHost(QStringLiteral("gpu-box"), QStringLiteral("/opt/venv/bin/python")));
    QCOMPARE(ui::savedHosts().size(), 1);
    QCOMPARE(ui::savedHosts().front().python, QStringLiteral("/opt/venv/bin/python"));
    QStringList labels, specs;
    for (const auto& d : ui::deviceChoices()) {
      labels << d.label;
      specs << d.spec;
    }
    QVERIFY2(labels.contains(QStringLiteral("ssh://gpu-box/cpu")) && labels.contains(QStringLiteral("ssh://gpu-box/cuda:0")),
             qPrintable(labels.join(' ')));
    QVERIFY(specs.contains(QStringLiteral("ssh://gpu-box/cpu?python=/opt/venv/bin/python")));
    dialog.removeSelected();
    QVERIFY(ui::savedHosts().isEmpty());
  }

  // Test connection: the host's torch and GPUs, connected off the GUI thread; what it found is
  // what the Compare dock offers.
  void testConnectionNamesTorch() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    ui::DevicesDialog dialog;
    QVERIFY(dialog.addHost(QStringLiteral("graft-test"), venvPython()));
    QSignalSpy done(&dialog, &ui::DevicesDialog::testFinished);
    dialog.testConnection();
    QVERIFY(dialog.isTesting());
    QVERIFY(done.wait(120000));
    QVERIFY2(done.front().front().toBool(), qPrintable(dialog.resultText()));
    QVERIFY2(dialog.resultText().startsWith(QStringLiteral("graft-test")) && dialog.resultText().contains(QStringLiteral("torch ")),
             qPrintable(dialog.resultText()));
    QVERIFY(ui::savedHosts().front().tested);
    ui::CompareDock dock;
    QVERIFY(dock.devicesB().contains(QStringLiteral("ssh://graft-test/cpu")));
  }

  // A host whose Python has no torch: the test and a compare say so, naming the host.
  void noTorchNamesTheHost() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    const QString bare = QStringLiteral("/usr/bin/python3");
    if (QProcess::execute(bare, {"-c", "import torch"}) == 0) QSKIP("/usr/bin/python3 has torch here");
    ui::DevicesDialog dialog;
    QVERIFY(dialog.addHost(QStringLiteral("graft-test"), bare));
    QSignalSpy done(&dialog, &ui::DevicesDialog::testFinished);
    dialog.testConnection();
    QVERIFY(done.wait(120000));
    QVERIFY(!done.front().front().toBool());
    QVERIFY2(dialog.resultText().startsWith(QStringLiteral("graft-test: no torch")), qPrintable(dialog.resultText()));

    auto doc = core::io::loadFile(test::testdata(QStringLiteral("pt2/resnet18.pt2"))).document;
    QVERIFY(doc);
    const int revisions = doc->count();
    ui::CompareDock dock;
    dock.setDocument(doc.get());
    QVERIFY(dock.setDeviceB(QStringLiteral("ssh://graft-test/cpu")));
    QVERIFY(runCompare(&dock, kRemoteWaitMs));
    QVERIFY(!dock.summary().ok);
    QVERIFY2(dock.verdictText().contains(QStringLiteral("graft-test: no torch")), qPrintable(dock.verdictText()));
    QCOMPARE(doc->count(), revisions);
  }

  // resnet18.pt2 with B on the loopback host's CPU: the verdict, every row and every canvas mark
  // equal a local CPU compare's, and the verdict names the device. At float16 the host runs B as
  // model.half() makes it, and the rows are the local ones less their local errors (which need
  // B's device here).
  void remoteCompareEqualsLocal_data() {
    QTest::addColumn<QString>("dtypeB");
    QTest::newRow("as saved") << QString();
    QTest::newRow("float16") << QStringLiteral("float16");
  }
  void remoteCompareEqualsLocal() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QFETCH(QString, dtypeB);
    addLoopbackHost(venvPython());
    ui::MainWindow w;
    QVERIFY(test::showModel(w, QStringLiteral("pt2/resnet18.pt2")));
    auto* compare = w.findChild<ui::CompareDock*>();
    compare->refreshDevices();
    w.findChild<QDockWidget*>(QStringLiteral("compareDock"))->show();
    compare->setPrecisionB(dtypeB);
    QVERIFY(compare->setDeviceB(QStringLiteral("cpu")));
    QVERIFY(runCompare(compare, kRemoteWaitMs));
    QVERIFY2(compare->summary().ok, qPrintable(compare->summary().error));
    auto* scene = w.canvas()->graphScene();
    QVERIFY(test::waitLayout(w.canvas()));
    const QString localVerdict = compare->verdictText();
    const QStringList localRows = cells(compare->table());
    const auto localMarks = marksOf(scene);
    QVERIFY(localRows.size() > 20);
    QVERIFY(!localMarks.isEmpty());

    QVERIFY2(compare->setDeviceB(QStringLiteral("ssh://graft-test/cpu")), qPrintable(compare->devicesB().join(' ')));
    QVERIFY(runCompare(compare, kRemoteWaitMs));
    QVERIFY2(compare->summary().ok, qPrintable(compare->summary().error));
    QVERIFY(test::waitLayout(w.canvas()));
    QVERIFY2(compare->verdictText().startsWith(localVerdict + QStringLiteral(" — B on graft-test:cpu, ")),
             qPrintable(compare->verdictText() + QStringLiteral("\nlocal: ") + localVerdict));
    QVERIFY(compare->verdictText().contains(QStringLiteral("torch ")));
    if (dtypeB.isEmpty()) QCOMPARE(cells(compare->table()), localRows);
    else QCOMPARE(cells(compare->table()).size(), localRows.size());
    QCOMPARE(marksOf(scene), localMarks);
    QVERIFY2(compare->remoteTraffic().startsWith(QStringLiteral("graft-test: sent ")), qPrintable(compare->remoteTraffic()));
    QCOMPARE(w.controller()->document()->count(), 1);  // a remote job never changes the document
  }

  // Cancel while B runs on the host (node by node, seconds), or while its model goes up a slow
  // link (tests/python/throttle_proxy.py, 64 KB/s each way, where the upload says how far it got
  // every two seconds and would take minutes): the job ends as cancelled within seconds, and the
  // next run succeeds.
  void cancelEndsTheRemoteRun_data() {
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("cancelAt");  // the status line to cancel at
    QTest::addColumn<QString>("retryOn");
    QTest::newRow("while the host runs B") << "graft-test" << "pt2/resnet18.pt2" << "running node by node" << "cpu";
    // A model no other case sent, so the host has no copy of it and the upload is slow.
    QTest::newRow("on a slow link, while sending") << "graft-slow" << "pt2/mobilenet_v3_small.pt2"
                                                  << "sent .* of .* \\(.*/s\\)" << "ssh://graft-test/cpu";
  }
  void cancelEndsTheRemoteRun() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    QFETCH(QString, host);
    QFETCH(QString, model);
    QFETCH(QString, cancelAt);
    QFETCH(QString, retryOn);
    ui::DevicesDialog dialog;
    QVERIFY(dialog.addHost(host, venvPython()));
    QVERIFY(dialog.addHost(QStringLiteral("graft-test"), venvPython()));
    auto doc = core::io::loadFile(test::testdata(model)).document;
    QVERIFY(doc);
    ui::CompareDock dock;
    dock.setDocument(doc.get());
    QVERIFY(dock.setDeviceB(QStringLiteral("ssh://%1/cpu").arg(host)));
    QSignalSpy done(&dock, &ui::CompareDock::finished);
    auto* status = dock.findChild<QLabel*>(QStringLiteral("compareStatus"));
    dock.start();
    QVERIFY(dock.isRunning());
    const QRegularExpression line(cancelAt);
    QVERIFY2(QTest::qWaitFor([&] { return line.match(status->text()).hasMatch() || done.count() > 0; }, 120000),
             qPrintable(status->text()));
    QVERIFY2(done.isEmpty(), qPrintable(dock.verdictText()));
    QElapsedTimer clock;
    clock.start();
    dock.cancel();
    QVERIFY(done.count() == 1 || done.wait(60000));
    QVERIFY2(clock.elapsed() < 10000, qPrintable(QStringLiteral("%1 ms").arg(clock.elapsed())));
    QVERIFY(dock.summary().cancelled);
    QCOMPARE(dock.verdictText(), QStringLiteral("Cancelled."));
    QVERIFY(!dock.isRunning());
    QCOMPARE(doc->count(), 1);
    QVERIFY(dock.setDeviceB(retryOn));
    QVERIFY(runCompare(&dock, kRemoteWaitMs));
    QVERIFY2(dock.summary().ok, qPrintable(dock.summary().error));
  }

  // Profile on a host from the Profile dock: the same dock, with the host's times on the
  // revision's own nodes (the canvas's cost heatmap), the device named; the document untouched.
  void remoteProfileInTheDock() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    addLoopbackHost(venvPython());
    auto doc = core::io::loadFile(test::testdata(QStringLiteral("pt2/resnet18.pt2"))).document;
    QVERIFY(doc);
    ui::ProfileDock dock;
    dock.setDocument(doc.get());
    dock.refreshDevices();
    QVERIFY(dock.setDevice(QStringLiteral("ssh://graft-test/cpu")));
    dock.findChild<QSpinBox*>(QStringLiteral("profileRuns"))->setValue(3);
    QSignalSpy done(&dock, &ui::ProfileDock::finished);
    dock.start();
    QVERIFY(done.count() == 1 || done.wait(kRemoteWaitMs));
    QVERIFY2(done.front().front().toBool(), qPrintable(done.front().back().toString()));
    QVERIFY(dock.after() && dock.before());
    QVERIFY2(dock.after()->device.startsWith(QStringLiteral("graft-test:cpu")), qPrintable(dock.after()->device));
    const auto costs = dock.nodeCosts();
    QVERIFY2(costs.size() > 40, qPrintable(QString::number(costs.size())));
    for (auto it = costs.begin(); it != costs.end(); ++it) QVERIFY(doc->current()->nodeOf(it.key()));
    QCOMPARE(doc->count(), 1);
    // Memory is recorded on this machine only: said before anything is sent.
    dock.findChild<QCheckBox*>(QStringLiteral("profileMemory"))->setChecked(true);
    done.clear();
    dock.start();
    QCOMPARE(done.count(), 1);
    QVERIFY(dock.summaryText().contains(QStringLiteral("memory is recorded on this machine only")));
  }

  // The History ledger follows the Compare dock's B: with B on the host, each revision is saved,
  // run and timed there; its row gives the verdict and the host's time (no peak: not measured on
  // a host's CPU), and the document stays as it was.
  void historyLedgerOnAHost() {
    if (!skip_.isEmpty()) QSKIP(qPrintable(skip_));
    addLoopbackHost(venvPython());
    ui::MainWindow w;
    QVERIFY(test::showModel(w, QStringLiteral("pt2/resnet18.pt2")));
    auto* compare = w.findChild<ui::CompareDock*>();
    compare->refreshDevices();
    QVERIFY(compare->setDeviceB(QStringLiteral("ssh://graft-test/cpu")));
    auto* history = w.parts().docks->history;
    history->recheck();
    w.rewriteDock()->applyRules({QStringLiteral("fold-conv-bn")});
    QCOMPARE(w.controller()->document()->count(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(history->ledgerEntry(1) != nullptr, kRemoteWaitMs);
    const auto* entry = history->ledgerEntry(1);
    QVERIFY2(entry->ok, qPrintable(entry->error));
    QVERIFY(entry->pass);  // a fold is within float32's rounding
    QVERIFY(entry->maxAbs > 0 && entry->medianMs > 0);
    QCOMPARE(entry->peakBytes, qint64(-1));
    const QString row = history->list()->item(1)->text();
    QVERIFY2(row.contains(QStringLiteral("✓")) && row.contains(QStringLiteral(" ms")) && !row.contains(QStringLiteral("MiB")),
             qPrintable(row));
    QCOMPARE(w.controller()->document()->count(), 2);
  }

};

QTEST_MAIN(TstRemoteUi)
#include "tst_remote_ui.moc"
