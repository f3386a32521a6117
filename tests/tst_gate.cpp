// One gate: every way the GUI changes a document (a node edit, a rule from the Rewrites dock, a
// tour step) commits through the window's Session, so each is in the journal, and replaying the
// journal on a fresh load rebuilds the same revisions. The History dock counts a rewrite as the
// Diff view does, names nodes by module path and op, and its ledger checks every revision.
#include "core/document/document_service.h"
#include "core/edit/edit.h"
#include "core/edit/graph_diff.h"
#include "core/edit/session.h"
#include "core/io/load.h"
#include "core/model/document.h"
#include "core/model/graph_view.h"
#include "core/rewrite/library.h"
#include "core/tour/tour.h"
#include "gui_support.h"
#include "ui/edit_actions.h"
#include "ui/history_dock.h"
#include "ui/document/document_controller.h"
#include "ui/main_window.h"
#include "ui/rewrite/rewrite_dock.h"
#include "ui/tour/tour_driver.h"

#include <QtCore/QDirIterator>
#include <QtCore/QJsonArray>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>
#include <QtWidgets/QDockWidget>
#include <QtWidgets/QLabel>
#include <QtWidgets/QListWidget>
#include <QtWidgets/QTreeWidget>

#include <functional>

using namespace graft;

namespace {

// Replays the window's journal on a fresh load of the same sample: the same revisions come back.
void checkReplays(ui::MainWindow& window) {
  QVERIFY(!window.controller()->journalPath().isEmpty());
  QString error;
  const auto journal = core::edit::Session::readJournal(window.controller()->journalPath(), &error);
  QVERIFY2(journal, qPrintable(error));
  auto fresh = core::io::loadSample(window.controller()->document()->sampleName());
  QVERIFY(fresh.ok());
  core::edit::Session replaying(*fresh.document);
  const auto r = replaying.replay(*journal);
  QVERIFY2(r.ok, qPrintable(r.error));
  QCOMPARE(fresh.document->count(), window.controller()->document()->count());
  // The journal keeps each change's provenance, and replay derives the same.
  const auto edits = journal->value(QStringLiteral("edits")).toArray();
  for (int i = 1; i < fresh.document->count(); ++i) {
    const QJsonObject kept = edits[i - 1].toObject().value(QStringLiteral("provenance")).toObject();
    QCOMPARE(kept.value(QStringLiteral("changed")).toObject().size(), int(fresh.document->revision(i)->change().changed.size()));
    QCOMPARE(kept.value(QStringLiteral("removed")).toArray().size(), int(fresh.document->revision(i)->change().removed.size()));
    QVERIFY(!kept.value(QStringLiteral("changed")).toObject().isEmpty());
  }
  for (int i = 0; i < fresh.document->count(); ++i)
    QCOMPARE(core::model::GraphView::build(*fresh.document->revision(i)).opHistogram(),
             core::model::GraphView::build(*window.controller()->document()->revision(i)).opHistogram());
}

}  // namespace

class TestGate : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("GRAFT_SESSION_DIR", dir_.path().toUtf8());
  }

  void nodeEditJournals() {
    ui::MainWindow window;
    QVERIFY(window.openSample(QStringLiteral("cnn")));
    core::model::NodeId relu = core::model::kNoNode;
    for (const auto& n : window.view()->nodes)
      if (n.kind == QLatin1String("aten::relu")) { relu = n.id; break; }
    QVERIFY(relu != core::model::kNoNode);
    QVERIFY(window.parts().edits->applyEdit(core::edit::ReplaceOp{relu, QStringLiteral("aten::gelu")}, false));
    QCOMPARE(window.controller()->document()->count(), 2);
    checkReplays(window);
  }

  void rewriteDockJournals() {
    ui::MainWindow window;
    QVERIFY(window.openSample(QStringLiteral("cnn")));
    const QString message = window.rewriteDock()->applyRules({QStringLiteral("fold-conv-bn")});
    QCOMPARE(window.controller()->document()->count(), 2);
    QVERIFY2(message.contains(QStringLiteral("→")), qPrintable(message));
    checkReplays(window);
  }

  void tourStepJournals() {
    ui::MainWindow window;
    QVERIFY(window.openSample(QStringLiteral("cnn")));
    const QString failure = test::performTourAction(window, QStringLiteral("apply_rule"), QStringLiteral("rule"), QStringLiteral("fold-conv-bn"));
    QVERIFY2(failure.isEmpty(), qPrintable(failure));
    QCOMPARE(window.controller()->document()->count(), 2);
    checkReplays(window);
  }

  // Journal before announce: when the views rebuild for a change (a rule, an undo, a redo, a
  // History click), the journal on disk already holds it.
  // The document service is the one owner of a document's Session: no code in app/ (graft-cli)
  // or ui/ (the window) makes a Session of its own, so every change of either goes through it.
  void noSessionOutsideTheService() {
    const QString source = qEnvironmentVariable("GRAFT_SOURCE_DIR");
    QVERIFY(!source.isEmpty());
    static const QRegularExpression made(
        QStringLiteral(R"((\bSession\s+\w+\s*[({])|(make_(unique|shared)<\s*(core::)?(edit::)?Session\s*>)|(\bnew\s+(core::)?(edit::)?Session\b))"));
    QStringList found;
    int files = 0;
    for (const char* folder : {"app", "ui"}) {
      QDirIterator it(source + QLatin1Char('/') + QLatin1String(folder), {QStringLiteral("*.cpp"), QStringLiteral("*.h")},
                      QDir::Files, QDirIterator::Subdirectories);
      while (it.hasNext()) {
        QFile f(it.next());
        QVERIFY(f.open(QIODevice::ReadOnly));
        ++files;
        const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
        for (qsizetype i = 0; i < lines.size(); ++i)
          if (made.match(lines[i]).hasMatch()) found << QStringLiteral("%1:%2: %3").arg(f.fileName()).arg(i + 1).arg(lines[i].trimmed());
      }
    }
    QVERIFY(files > 50);
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QLatin1Char('\n'))));
  }

  // The folders of core/ depend one way: no folder reaches itself again through the includes of
  // its files (model at the bottom; run below io, rewrite and profile; jobs, report and document
  // above them). A cycle found is printed with an include on each step.
  void coreFoldersFormNoCycle() {
    const QString core = qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/core");
    static const QRegularExpression include(QStringLiteral("^#include \"core/(\\w+)/"));
    QMap<QString, QMap<QString, QString>> uses;  // folder -> folder it includes -> one such include
    QDirIterator it(core, {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
      const QString path = it.next();
      const QString folder = QDir(core).relativeFilePath(path).section(QLatin1Char('/'), 0, 0);
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
      for (qsizetype i = 0; i < lines.size(); ++i)
        if (const auto m = include.match(lines[i]); m.hasMatch() && m.captured(1) != folder && !uses[folder].contains(m.captured(1)))
          uses[folder].insert(m.captured(1), QStringLiteral("%1:%2").arg(QDir(core).relativeFilePath(path)).arg(i + 1));
    }
    QVERIFY(uses.size() >= 10);
    QStringList path;
    QSet<QString> done;
    std::function<bool(const QString&)> reachesBack = [&](const QString& folder) {
      if (path.contains(folder)) {
        path << folder;
        return true;
      }
      if (done.contains(folder)) return false;
      path << folder;
      for (auto next = uses[folder].cbegin(); next != uses[folder].cend(); ++next)
        if (reachesBack(next.key())) return true;
      path.removeLast();
      done.insert(folder);
      return false;
    };
    for (const QString& folder : uses.keys()) {
      if (!reachesBack(folder)) continue;
      QStringList steps;
      for (qsizetype i = path.indexOf(path.back()); i + 1 < path.size(); ++i)
        steps << QStringLiteral("%1 -> %2 (%3)").arg(path[i], path[i + 1], uses[path[i]][path[i + 1]]);
      QFAIL(qPrintable(QStringLiteral("core/ has a cycle: ") + steps.join(QStringLiteral("; "))));
    }
    for (const char* above : {"io", "rewrite", "profile", "jobs", "document", "report", "remote"})
      QVERIFY2(!uses[QStringLiteral("run")].contains(QLatin1String(above)), qPrintable(uses[QStringLiteral("run")].value(QLatin1String(above))));
  }

  // The window only builds and wires: its helpers reach it through the parts it hands them
  // (ui/workbench.h), so no other ui/ file includes main_window.h, and ui/'s files include each
  // other without a cycle. The one pair allowed is the canvas's scene and the items it draws,
  // which paint from the scene's state (Qt's QGraphicsScene pattern).
  void uiHelpersDoNotReachTheWindow() {
    const QString ui = qEnvironmentVariable("GRAFT_SOURCE_DIR") + QStringLiteral("/ui");
    static const QRegularExpression include(QStringLiteral("^#include \"(ui/[\\w/]+)\\.h\""));
    QMap<QString, QMap<QString, QString>> uses;  // file without extension -> included -> where
    QDirIterator it(ui, {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
      const QString path = it.next();
      const QString relative = QStringLiteral("ui/") + QDir(ui).relativeFilePath(path);
      const QString unit = relative.section(QLatin1Char('.'), 0, 0);
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
      for (qsizetype i = 0; i < lines.size(); ++i) {
        const auto m = include.match(lines[i]);
        if (!m.hasMatch() || m.captured(1) == unit) continue;
        QVERIFY2(m.captured(1) != QLatin1String("ui/main_window"), qPrintable(QStringLiteral("%1:%2 includes the window").arg(relative).arg(i + 1)));
        uses[unit].insert(m.captured(1), QStringLiteral("%1:%2").arg(relative).arg(i + 1));
      }
    }
    QVERIFY(uses.size() >= 25);  // the walk found ui/'s files
    uses[QStringLiteral("ui/canvas/graph_items")].remove(QStringLiteral("ui/canvas/graph_scene"));
    QStringList path;
    QSet<QString> done;
    std::function<bool(const QString&)> reachesBack = [&](const QString& unit) {
      if (path.contains(unit)) return path << unit, true;
      if (done.contains(unit)) return false;
      path << unit;
      for (auto next = uses[unit].cbegin(); next != uses[unit].cend(); ++next)
        if (reachesBack(next.key())) return true;
      path.removeLast();
      done.insert(unit);
      return false;
    };
    for (const QString& unit : uses.keys()) {
      if (!reachesBack(unit)) continue;
      QStringList steps;
      for (qsizetype i = path.indexOf(path.back()); i + 1 < path.size(); ++i) steps << uses[path[i]][path[i + 1]];
      QFAIL(qPrintable(QStringLiteral("ui/ has an include cycle: ") + steps.join(QStringLiteral(" -> "))));
    }
    QFile window(ui + QStringLiteral("/main_window.cpp"));
    QVERIFY(window.open(QIODevice::ReadOnly));
    QVERIFY2(window.readAll().count('\n') <= 400, "ui/main_window.cpp is over 400 lines: move the work into a part");
  }

  // The product's code follows .clang-format's column limit (120), so it reads without
  // scrolling and a formatter run changes nothing there.
  void productLinesFitTheColumnLimit() {
    const QString source = qEnvironmentVariable("GRAFT_SOURCE_DIR");
    QStringList over;
    int files = 0;
    for (const char* folder : {"core", "ui", "app"}) {
      QDirIterator it(source + QLatin1Char('/') + QLatin1String(folder), {QStringLiteral("*.cpp"), QStringLiteral("*.h")},
                      QDir::Files, QDirIterator::Subdirectories);
      while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        ++files;
        const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
        for (qsizetype i = 0; i < lines.size(); ++i)
          if (lines[i].size() > 120) over << QStringLiteral("%1:%2").arg(QDir(source).relativeFilePath(path)).arg(i + 1);
      }
    }
    QVERIFY(files > 200);
    QVERIFY2(over.isEmpty(), qPrintable(QStringLiteral("over 120 columns: ") + over.mid(0, 10).join(QStringLiteral(", "))));
  }

  // The service announces each change once, typed, after the journal has it.
  void serviceAnnouncesTypedEvents() {
    using Kind = core::document::ChangeEvent::Kind;
    core::document::DocumentService service;
    QVector<core::document::ChangeEvent> events;
    QStringList late;
    const QString journal = dir_.filePath(QStringLiteral("service.json"));
    connect(&service, &core::document::DocumentService::changed, this, [&](const core::document::ChangeEvent& e) {
      events << e;
      if (e.kind != Kind::RevisionAdded) return;
      const auto j = core::edit::Session::readJournal(journal, nullptr);
      if (!j || j->value(QStringLiteral("edits")).toArray().size() != e.revision) late << QString::number(e.revision);
    });
    auto loaded = core::io::loadSample(QStringLiteral("cnn"));
    QVERIFY(loaded.ok());
    service.open(std::move(loaded.document), journal);
    QVERIFY(service.applyRewrite({core::rewrite::Step::ofRule(*core::rewrite::RuleLibrary::load().find(QStringLiteral("fold-conv-bn")))}).ok());
    service.undo();
    service.redo();
    service.markSaved(1, dir_.filePath(QStringLiteral("x.pt")));
    QVERIFY(!service.isModified());
    service.close();
    const QVector<std::pair<Kind, int>> expected{{Kind::Opened, 0}, {Kind::RevisionAdded, 1}, {Kind::CurrentMoved, 0},
                                                 {Kind::CurrentMoved, 1}, {Kind::Saved, 1}, {Kind::Closed, -1}};
    QCOMPARE(events.size(), expected.size());
    for (qsizetype i = 0; i < events.size(); ++i) {
      QCOMPARE(int(events[i].kind), int(expected[i].first));
      QCOMPARE(events[i].revision, expected[i].second);
    }
    QVERIFY2(late.isEmpty(), qPrintable(late.join(QLatin1Char(' '))));
    // Without a document every change is refused, never a crash.
    QVERIFY(!service.apply(core::edit::Edit{}).ok());
  }

  void journalBeforeTheViews() {
    ui::MainWindow window;
    QVERIFY(window.openSample(QStringLiteral("cnn")));
    const QString journal = window.controller()->journalPath();
    auto* tree = window.findChild<QTreeWidget*>(QStringLiteral("moduleTree"));
    QVERIFY(tree);
    int checked = 0;
    QStringList late;
    // The Modules tree is rebuilt by the window's view refresh, after every change.
    connect(tree->model(), &QAbstractItemModel::rowsInserted, this, [&](const QModelIndex& parent) {
      if (parent.isValid() || !window.controller()->document()) return;
      const auto j = core::edit::Session::readJournal(journal, nullptr);
      const int current = j ? j->value(QStringLiteral("current")).toInt(-1) : -1;
      const int edits = j ? int(j->value(QStringLiteral("edits")).toArray().size()) : -1;
      ++checked;
      if (current != window.controller()->document()->currentIndex() || edits != window.controller()->document()->count() - 1)
        late << QStringLiteral("view at %1 of %2, journal at %3 of %4 edits")
                    .arg(window.controller()->document()->currentIndex()).arg(window.controller()->document()->count()).arg(current).arg(edits);
    });
    window.rewriteDock()->applyRules({QStringLiteral("fold-conv-bn")});
    window.parts().edits->undo->trigger();
    window.parts().edits->redo->trigger();
    window.parts().edits->undo->trigger();
    QVERIFY(checked >= 4);
    QVERIFY2(late.isEmpty(), qPrintable(late.join(QStringLiteral("; "))));
  }

  // History counts what the Diff view counts, names nodes by module path and op, never grows
  // the window with one line per node, and checks each revision against the original.
  void historyMatchesDiff() {
    ui::MainWindow window;
    QVERIFY(window.openSample(QStringLiteral("cnn")));
    window.rewriteDock()->applyRules({QStringLiteral("fold-conv-bn")});
    const auto* doc = window.controller()->document();
    const auto diff = core::edit::diffGraphs(*doc->original(), *doc->current(), core::edit::DiffMatching::ByProvenance);
    auto* history = window.parts().docks->history;
    auto* summary = history->findChild<QLabel*>(QStringLiteral("historyDiff"));
    QVERIFY(summary);
    QVERIFY2(summary->text().contains(diff.summaryText()), qPrintable(summary->text() + " / " + diff.summaryText()));
    auto* lines = history->findChild<QListWidget*>(QStringLiteral("historyDiffLines"));
    QVERIFY(lines);
    QCOMPARE(lines->count(), int(diff.added.size() + diff.removed.size() + diff.changed.size()));
    for (int i = 0; i < lines->count(); ++i) {
      QVERIFY2(!lines->item(i)->text().contains(QLatin1String("node ")), qPrintable(lines->item(i)->text()));
      QVERIFY(lines->item(i)->text().contains(QLatin1String("aten::")));
    }
    // The ledger: revision 1 checked against the original, in the background.
    QTRY_VERIFY_WITH_TIMEOUT(history->ledgerEntry(1) != nullptr, 120000);
    const auto* entry = history->ledgerEntry(1);
    QVERIFY2(entry->ok, qPrintable(entry->error));
    QVERIFY(entry->pass);
    QVERIFY(entry->maxAbs < 1e-3);
    QVERIFY(entry->medianMs > 0);
    QVERIFY(history->list()->item(1)->text().contains(QStringLiteral("✓")));
    // Its peak memory: folding removed the batch_norm outputs, never adding any.
    QTRY_VERIFY_WITH_TIMEOUT(history->ledgerEntry(0) != nullptr, 120000);
    QVERIFY(entry->peakBytes > 0 && entry->peakBytes <= history->ledgerEntry(0)->peakBytes);
    QVERIFY(history->list()->item(1)->text().contains(QStringLiteral("MiB peak")));
    // GRAFT_SCREENSHOT_DIR: a picture of the dock, to look at.
    if (const QString shots = qEnvironmentVariable("GRAFT_SCREENSHOT_DIR"); !shots.isEmpty()) {
      window.resize(1366, 768);
      window.show();
      if (auto* dock = window.findChild<QDockWidget*>(QStringLiteral("historyDock"))) dock->raise();
      QTest::qWait(500);
      window.grab().save(shots + QStringLiteral("/history_ledger.png"));
    }
  }

 private:
  QTemporaryDir dir_;
};

QTEST_MAIN(TestGate)
#include "tst_gate.moc"
